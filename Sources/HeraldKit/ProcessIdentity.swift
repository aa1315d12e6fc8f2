import Foundation

/// A process as a claim names it: its ID and when it started, so that a claim left by a process that died is told
/// from one whose process runs (a process ID alone may be reused by a later process).
struct ProcessIdentity: Equatable, Sendable {
    var pid: Int32
    /// The process's start time in the system's own units (ticks since boot on Linux, microseconds since 1970 on
    /// Apple platforms); 0 when it could not be read.
    var start: UInt64

    /// This process.
    static let current = ProcessIdentity(pid: getpid(), start: startTime(of: getpid()) ?? 0)

    /// The identity in a claim's file name: `PID-START`.
    var text: String { "\(pid)-\(start)" }

    init(pid: Int32, start: UInt64) {
        self.pid = pid
        self.start = start
    }

    /// Whether this process still runs: false only when the system says no process has its ID, or the process
    /// with its ID started at another time (a new process that reused the ID). When the system will not say (an
    /// app's sandbox), it is taken to run.
    var isRunning: Bool {
        if kill(pid, 0) != 0, errno == ESRCH { return false }
        guard start != 0, let now = Self.startTime(of: pid) else { return true }
        return now == start
    }

    /// When process `pid` started, if the system tells.
    static func startTime(of pid: Int32) -> UInt64? {
        #if os(Linux)
            // Field 22 of /proc/PID/stat; the name before it (field 2, in parentheses) may hold spaces.
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 19 ? UInt64(fields[19]) : nil
        #elseif os(iOS) || os(macOS) || os(tvOS) || os(watchOS) || os(visionOS)
            var info = kinfo_proc()
            var size = MemoryLayout<kinfo_proc>.stride
            var name: [Int32] = [CTL_KERN, KERN_PROC, KERN_PROC_PID, pid]
            guard sysctl(&name, 4, &info, &size, nil, 0) == 0, size > 0 else { return nil }
            let started = info.kp_proc.p_un.__p_starttime
            return UInt64(started.tv_sec) * 1_000_000 + UInt64(started.tv_usec)
        #else
            return nil
        #endif
    }
}
