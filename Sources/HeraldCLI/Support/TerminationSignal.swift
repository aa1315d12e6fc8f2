import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Waits for SIGINT or SIGTERM, so a long-running command can shut down cleanly.
enum TerminationSignal {
    static func wait() async {
        var sources: [any DispatchSourceSignal] = []
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let pending = Mutex<CheckedContinuation<Void, Never>?>(continuation)
            for signalNumber in [SIGINT, SIGTERM] {
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
                source.setEventHandler {
                    pending.withLock { waiting in
                        waiting?.resume()
                        waiting = nil
                    }
                }
                source.resume()
                sources.append(source)
            }
        }
        sources.forEach { $0.cancel() }
    }
}
