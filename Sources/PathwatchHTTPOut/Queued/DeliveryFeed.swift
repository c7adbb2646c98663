/// What the deliverer asks of the side that fills its queue: records that fall due on a
/// schedule of their own (Alertmanager's re-sends), and records held in memory while the disk
/// refused them. A protocol, so delivery depends on no intake.
package protocol DeliveryFeed: AnyObject, Sendable {
    /// When the next scheduled record is due (monotonic nanoseconds), or nil.
    var nextDue: UInt64? { get }
    /// Queues the scheduled records that are due.
    func queueDueRecords()
    /// Tries again to queue what the disk refused before: delivery just made room.
    func offerHeldAgain()
}
