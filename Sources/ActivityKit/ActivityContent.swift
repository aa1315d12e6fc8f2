public import Foundation

/// An activity's content at one moment: its state, when it becomes stale, and how relevant it is beside others.
public struct ActivityContent<State: Codable & Hashable & Sendable>: Hashable, Sendable {
    /// The state the activity shows.
    public var state: State
    /// When the content is out of date (the activity shows as ``ActivityState/stale``); `nil` never.
    public var staleDate: Date?
    /// Which activity the system shows first when there are several; higher first.
    public var relevanceScore: Double

    public init(state: State, staleDate: Date?, relevanceScore: Double = 0) {
        self.state = state
        self.staleDate = staleDate
        self.relevanceScore = relevanceScore
    }
}
