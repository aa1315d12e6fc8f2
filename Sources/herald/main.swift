import CHeraldMalloc
import HeraldCLI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Herald's servers run for days; keep large freed blocks from staying resident (see herald_malloc.h).
_ = herald_pin_mmap_threshold(128 * 1024)
exit(await HeraldMain.run(arguments: Array(CommandLine.arguments.dropFirst())))
