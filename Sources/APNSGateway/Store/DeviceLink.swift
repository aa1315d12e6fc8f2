package import Courier

/// A device's live connection to the gateway (the courier), for one of its app tokens.
package protocol DeviceLink: AnyObject, Sendable {
    /// Sends a notification to the device now; the device acknowledges it through
    /// ``NotificationStore/acknowledge(_:token:)``.
    func deliver(_ notification: AcceptedNotification)
}
