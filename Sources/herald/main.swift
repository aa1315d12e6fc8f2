import CHeraldMalloc
import Foundation
import HeraldCLI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Herald's servers run for days; keep large freed blocks from staying resident (see herald_malloc.h).
_ = herald_pin_mmap_threshold(128 * 1024)
// ... and from keeping what each of many threads freed in an arena of its own: one arena per core.
_ = herald_limit_malloc_arenas(Int32(ProcessInfo.processInfo.activeProcessorCount))
// ... and give back what a burst (a connection flood, a large broadcast) left free, every 10 seconds.
Thread {
    while true {
        Thread.sleep(forTimeInterval: 10)
        _ = herald_release_free_memory()
    }
}.start()
exit(await HeraldMain.run(arguments: Array(CommandLine.arguments.dropFirst())))
