import HeraldCLI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

exit(await HeraldMain.run(arguments: Array(CommandLine.arguments.dropFirst())))
