/// What a sink implements: how a batch becomes the items it delivers, and the delivery of one
/// item. Everything else — its bounded intake, its thread, pacing, draining at a stop, drop
/// counts and the status built from them — is its SinkRunner's, the one way a sink is run.
package protocol SinkDelivery: AnyObject, Sendable {
    /// What the sink delivers one at a time: a line, a document, a batch.
    associatedtype Item: Sendable

    /// How its intake keeps what waits for delivery.
    var intakePolicy: SinkIntakePolicy { get }
    /// The least time between deliveries of different ticks (`SinkIntake.tick`); nil: each item
    /// goes as soon as its thread is free.
    var spacing: DocumentSpacing? { get }
    /// Its thread's name (at most 15 bytes show).
    var threadName: String { get }
    /// How long a stop waits for the item being delivered, counted from the start of the
    /// drain; nil: no longer than the drain's own timeout.
    var finishWithin: Double? { get }
    /// See `Sink.takesEveryReport`.
    var takesEveryReport: Bool { get }
    /// Whether `deliverOnCaller` may deliver on a submitter's thread at all.
    var deliversOnCaller: Bool { get }
    /// Its thread runs nothing until `start` (the runner's `SinkLane`): a sink made by a reload
    /// must not touch what the sink it replaces still owns (a push sink's queue folder).
    var startsPaused: Bool { get }
    /// At most this many waiting items go to one `deliver(group:)`: one fdatasync covers them.
    var itemsPerDelivery: Int { get }
    /// Set: a close waits up to this long (seconds) for what waits to be delivered, then hands
    /// what is left, and every item submitted after, to the successor's runner (or counts it
    /// as dropped). Nil: a close waits for nothing, and what waits goes out on the thread.
    var closeWait: Double? { get }

    /// On the submitting thread, with no lock of the runner's held: what of `batch` this sink
    /// delivers (nothing: it ignores the batch). Cheap, as the agent waits for it.
    func intake(_ batch: SinkBatch) -> SinkIntake<Item>
    /// On the runner's thread: delivers one item, blocking as long as it takes.
    func deliver(_ item: Item) -> SinkDeliveryResult
    /// On the runner's thread: delivers up to `itemsPerDelivery` items, oldest first, as one.
    func deliver(group: [Item]) -> SinkDeliveryResult
    /// Once, as the runner is made: its thread, for jobs of the delivery's own (retries, timers)
    /// that must not run beside a delivery.
    func attach(_ lane: SinkLane)
    /// The runner dropped `count` items, for `reason` (already counted in the status): for a
    /// sink that says so in its log.
    func noteDropped(_ count: Int, _ reason: SinkDropReason)
    /// At a stop, once the runner's intake is delivered: waits, until the clock's monotonic
    /// `deadline`, for what the delivery passed on to go further (a push sink's posting).
    func drain(until deadline: UInt64)
    /// On the submitting thread, when nothing is queued before `items` and nothing is being
    /// delivered: delivers them there if that cannot block (a pipe that takes them now, a
    /// hand-over to another thread), saving the runner's thread a wake-up. Nil: declined, the
    /// runner's thread delivers them.
    func deliverOnCaller(_ items: [Item]) -> SinkDeliveryResult?
    /// The sink's own part of its status: its type and target, and what it alone counts (a
    /// stream cut off). The runner adds what waits, what it dropped, the last delivery and error.
    func status() -> SinkStatus
    /// See `Sink.start`.
    func start()
    /// See `Sink.close(handingOverTo:)`: called once the runner takes nothing more.
    func close(handingOverTo successor: Self?)
    /// As `close(handingOverTo:)`, for a sink with a `closeWait`: `unsent` were accepted and
    /// not delivered in time, and went to the successor's runner (or were dropped and counted).
    func close(handingOverTo successor: Self?, unsent: [Item])
}

extension SinkDelivery {
    package var spacing: DocumentSpacing? { nil }
    package var finishWithin: Double? { nil }
    package var takesEveryReport: Bool { false }
    package var deliversOnCaller: Bool { false }
    package var startsPaused: Bool { false }
    package var itemsPerDelivery: Int { 1 }
    package var closeWait: Double? { nil }
    package func deliver(group: [Item]) -> SinkDeliveryResult {
        group.map { deliver($0) }.last ?? .unconfirmed
    }
    package func attach(_ lane: SinkLane) {}
    package func noteDropped(_ count: Int, _ reason: SinkDropReason) {}
    package func drain(until deadline: UInt64) {}
    package func deliverOnCaller(_ items: [Item]) -> SinkDeliveryResult? { nil }
    package func start() {}
    package func close(handingOverTo successor: Self?) {}
    package func close(handingOverTo successor: Self?, unsent: [Item]) { close(handingOverTo: successor) }
}

/// Why the runner dropped items, for a sink that logs it.
package enum SinkDropReason: Sendable, Equatable {
    /// Past the intake's bound: delivery has not kept up.
    case overflow
    /// Submitted after the sink closed, with no successor to take them.
    case afterClose
    /// Still waiting when a stop's time ran out.
    case atStop
}

/// What a sink's intake keeps while delivery is busy or paced.
package enum SinkIntakePolicy: Sendable, Equatable {
    /// Every item, in order, at most `max`: past it the oldest are dropped and counted.
    case keepAll(max: Int)
    /// The newest item alone: a document that replaces the one before is not a loss.
    case keepLatest
}

/// What a sink takes of one batch.
package struct SinkIntake<Item: Sendable>: Sendable {
    package var items: [Item]
    /// Goes at once, without waiting for the spacing (once per delivery: a change never waits).
    package var urgent: Bool
    /// The tick its batch carries (`SinkBatch.tick`), for a sink with a `spacing`: the spacing
    /// counts from the tick last delivered, and an item of that same tick goes at once. Nil:
    /// the spacing counts from the last delivery's start.
    package var tick: UInt64?

    package init(_ items: [Item], urgent: Bool = false, tick: UInt64? = nil) {
        self.items = items
        self.urgent = urgent
        self.tick = tick
    }

    /// The batch is not for this sink.
    package static var none: SinkIntake { SinkIntake([]) }
}

/// How one delivery went, as the sink's status reports it.
package enum SinkDeliveryResult: Sendable, Equatable {
    /// Out: its time is the sink's `last_delivery`, and its `last_error` is cleared.
    case delivered
    /// Not delivered, for this reason: the sink's `last_error`.
    case failed(String)
    /// Neither known nor refused (handed to another thread, a write that went nowhere): the
    /// status stays as it was.
    case unconfirmed
    /// Not taken: the destination cannot take them now (a queue folder another sink still
    /// holds). They wait again, ahead of what came since, and are offered again after this
    /// many nanoseconds on the agent's clock; the status stays as it was.
    case notTaken(retryAfter: UInt64)
}
