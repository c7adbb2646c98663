/// What a sink reports about itself, captured in each snapshot (the status document's `sinks`,
/// `/metrics`' `pathwatch_sink_*`). Never a secret and never a URL with credentials.
package struct SinkStatus: Sendable {
    package var type: String
    /// Where it delivers, for people: a file path, "stdout", a URL without credentials or query.
    package var target: String
    package var queued: Int
    /// Everything it accepted and will never deliver: dropped when full, or refused for good.
    package var dropped: Int
    /// Of those, refused for good by the receiver (sinks that can be refused: webhook).
    package var rejected: Int?
    package var lastDelivery: WallTime?
    package var lastError: String?

    package init(
        type: String, target: String, queued: Int, dropped: Int, rejected: Int? = nil, lastDelivery: WallTime? = nil,
        lastError: String? = nil
    ) {
        self.type = type
        self.target = target
        self.queued = queued
        self.dropped = dropped
        self.rejected = rejected
        self.lastDelivery = lastDelivery
        self.lastError = lastError
    }
}
