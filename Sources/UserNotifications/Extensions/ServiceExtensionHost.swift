import Foundation
import Synchronization

/// Runs a service extension as iOS does and returns what the system would display: the content the extension hands
/// over in time; at the time limit, whatever `serviceExtensionTimeWillExpire()` hands over; otherwise the original.
///
/// ```swift
/// let host = ServiceExtensionHost(timeLimit: .seconds(30))
/// let shown = await host.process(request, with: NotificationService())
/// ```
public struct ServiceExtensionHost: Sendable {
    /// How the shown content came about.
    public enum Resolution: Sendable, Hashable {
        /// The extension called its content handler within the time limit.
        case modified
        /// The extension delivered its best attempt from `serviceExtensionTimeWillExpire()`.
        case bestAttempt
        /// The extension never delivered; the original content is shown.
        case original
    }

    /// The shown content and how it came about.
    public struct Outcome: Sendable {
        public let content: UNNotificationContent
        public let resolution: Resolution
    }

    /// The time an extension has before `serviceExtensionTimeWillExpire()` (about 30 seconds on iOS).
    public let timeLimit: Duration
    private let clock: any Clock<Duration>

    /// A host with a time limit, measured on `clock`.
    public init(timeLimit: Duration = .seconds(30), clock: any Clock<Duration> = ContinuousClock()) {
        self.timeLimit = timeLimit
        self.clock = clock
    }

    /// Runs `serviceExtension` on `request` and returns the content to display.
    public func process(
        _ request: UNNotificationRequest,
        with serviceExtension: UNNotificationServiceExtension
    ) async -> UNNotificationContent {
        await run(request, with: serviceExtension).content
    }

    /// Runs `serviceExtension` on `request` and returns the content to display with how it came about.
    public func run(_ request: UNNotificationRequest, with serviceExtension: UNNotificationServiceExtension) async
        -> Outcome
    {
        let delivery = ContentDelivery()
        let hosted = HostedExtension(serviceExtension)
        let clock = self.clock
        let timeLimit = self.timeLimit
        let timer = Task {
            try await clock.sleep(for: timeLimit)
            delivery.beginExpiring()
            hosted.serviceExtension.serviceExtensionTimeWillExpire()
            delivery.finish(with: request.content, resolution: .original)
        }
        Task.detached {
            hosted.serviceExtension.didReceive(request) { content in
                delivery.finish(with: content, resolution: .modified)
            }
        }
        let outcome = await delivery.outcome()
        timer.cancel()
        return outcome
    }
}

/// An extension handed from the caller to the tasks that run it.
// Safety: iOS calls `didReceive` on one thread and `serviceExtensionTimeWillExpire` on another, possibly while the
// extension's own work runs; extensions are written for that. The host adds no access of its own.
private struct HostedExtension: @unchecked Sendable {
    let serviceExtension: UNNotificationServiceExtension

    init(_ serviceExtension: UNNotificationServiceExtension) {
        self.serviceExtension = serviceExtension
    }
}

/// The first content an extension hands over, and the one waiting for it.
private final class ContentDelivery: Sendable {
    private struct State {
        var expiring = false
        var outcome: ServiceExtensionHost.Outcome?
        var waiter: CheckedContinuation<ServiceExtensionHost.Outcome, Never>?
    }

    private let state = Mutex(State())

    func beginExpiring() {
        state.withLock { $0.expiring = true }
    }

    func finish(with content: UNNotificationContent, resolution: ServiceExtensionHost.Resolution) {
        let shown = content.copy() as! UNNotificationContent
        let waiter = state.withLock { state -> CheckedContinuation<ServiceExtensionHost.Outcome, Never>? in
            guard state.outcome == nil else { return nil }
            let final = state.expiring && resolution == .modified ? .bestAttempt : resolution
            state.outcome = ServiceExtensionHost.Outcome(content: shown, resolution: final)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: state.withLock { $0.outcome! })
    }

    func outcome() async -> ServiceExtensionHost.Outcome {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> ServiceExtensionHost.Outcome? in
                if let outcome = state.outcome { return outcome }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
