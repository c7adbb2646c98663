/// What the deliverer asks of the side that fills its queue: payloads that fall due on a
/// schedule of their own (Alertmanager's re-sends), and payloads held in memory while the disk
/// refused them. A protocol, so delivery depends on no intake.
protocol DeliveryFeed: AnyObject, Sendable {
    /// When the next scheduled payload is due (monotonic nanoseconds), or nil.
    var nextDue: UInt64? { get }
    /// Queues the scheduled payloads that are due.
    func queueDuePayloads()
    /// Tries again to queue what the disk refused before: delivery just made room.
    func offerHeldAgain()
}
