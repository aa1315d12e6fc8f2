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
// ... and give back what a burst (a connection flood, a large broadcast) left free, every second: a broadcast that
// writes each device its own payload (its language, its variables) frees as much as it keeps, and every 10 seconds
// its provider peaked 1.12 times as high as one text's (1 second: 1.07; the trim takes well under a millisecond).
Thread {
    while true {
        Thread.sleep(forTimeInterval: 1)
        _ = herald_release_free_memory()
    }
}.start()
exit(await HeraldMain.run(arguments: Array(CommandLine.arguments.dropFirst())))
