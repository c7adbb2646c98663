/// When a spaced sink's next delivery may start (`SinkDelivery.spacing`). The spacing counts
/// between ticks, the grid the agent's documents follow (`SinkBatch.tick`): a later item of the
/// tick last delivered (a slower probe's reports, which the agent's pacing already spaced) goes
/// at once, and an item of a new tick no sooner than the spacing after the tick delivered.
/// Counted from the last delivery instead, such an item waited a whole spacing, and so did
/// every tick's after it. Items that carry no tick count from the last delivery's start.
struct SinkPace {
    /// When the last delivery began (monotonic).
    private var lastStart: UInt64?
    /// The tick of the newest item waiting, and of the newest item last delivered.
    private var queuedTick: UInt64?
    private var lastTick: UInt64?

    /// An item of `tick` joined what waits.
    mutating func queued(tick: UInt64?) { queuedTick = tick }

    /// A delivery of what waits began at `now`.
    mutating func started(at now: UInt64) {
        lastStart = now
        lastTick = queuedTick
    }

    /// The soonest an item of `tick` may start a delivery (0: now).
    func due(_ spacing: DocumentSpacing, tick: UInt64?) -> UInt64 {
        if let tick, let lastTick { return tick == lastTick ? 0 : spacing.earliestNext(after: lastTick) }
        guard let lastStart else { return 0 }
        return spacing.earliestNext(after: lastStart)
    }
}
