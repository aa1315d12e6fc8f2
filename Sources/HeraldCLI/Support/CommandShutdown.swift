import ServiceLifecycle
import Synchronization

/// What a service of a command's group uses to shut the group down gracefully, as SIGTERM would: a device
/// terminal's `quit`. Made before the group, handed to the service and to ``CommandServices/run(_:logger:shutdown:)``.
final class CommandShutdown: Sendable {
    private let group = Mutex<ServiceGroup?>(nil)

    init() {}

    /// The group this shuts down.
    func attach(_ group: ServiceGroup) {
        self.group.withLock { $0 = group }
    }

    /// Shuts the group down gracefully; `false` when no group runs (a test running the service alone).
    func request() async -> Bool {
        guard let group = group.withLock({ $0 }) else { return false }
        await group.triggerGracefulShutdown()
        return true
    }
}
