import CPathwatchProbe
import Synchronization

/// What an emitter feeds: the agent's collector, or ProbeTester's gate.
public protocol ObservationAccepting: AnyObject, Sendable {
    /// emit(): PW_OK or PW_ERR.
    func accept(_ raw: UnsafePointer<pw_observation>?) -> Int32
    /// Refuses every emit from now on.
    func close()
}

extension ObservationGate: ObservationAccepting where Kept: ObservationKeeping {}

/// The emitters handed to plug-ins, and the calls they belong to — the agent's and
/// ProbeTester's alike.
///
/// A plug-in may keep the `pw_emitter *` it was given and call it from a thread of its own after
/// its call returned. So the struct it points to must still be readable then (it lives in a
/// ring of slots that is allocated once and never freed), and its `context` is never a pointer
/// the host dereferences: it is the call's number, looked up in a table of the calls still
/// running. A late emit finds no call and gets PW_ERR; it never reaches freed memory.
public enum EmitterSlots {
    /// Slots are reused round-robin; a stale pointer to a reused slot reads another call's
    /// number, which is refused unless that call is the one running in it now.
    static let slotCount = 4_096
    /// Each slot is written only by the call whose number maps to it, before the plug-in sees
    /// it; plug-ins only read it. Two calls share a slot only 4,096 calls apart.
    nonisolated(unsafe) private static let slots: UnsafeMutablePointer<pw_emitter> = {
        let slots = UnsafeMutablePointer<pw_emitter>.allocate(capacity: slotCount)
        slots.initialize(repeating: pw_emitter(struct_size: 0, context: nil, emit: nil), count: slotCount)
        return slots
    }()
    private static let nextCall = Atomic<UInt>(1)
    private static let calls = Mutex(Calls())

    /// The calls running, and the instances the last `slotCount` returned ones belonged to.
    private struct Calls {
        var running: [UInt: any ObservationAccepting] = [:]
        var returned: [UInt: LateEmits] = [:]
    }

    /// Runs `body` with an emitter that feeds `collector`, and closes it when `body` returns:
    /// from then on every emit through it is refused, and counted in `late` when given.
    public static func withEmitter<R>(
        for collector: any ObservationAccepting, late: LateEmits? = nil, _ body: (UnsafePointer<pw_emitter>) -> R
    ) -> R {
        let call = nextCall.add(1, ordering: .relaxed).oldValue
        calls.withLock { $0.running[call] = collector }
        let slot = slots + Int(call % UInt(slotCount))
        slot.pointee = pw_emitter(
            struct_size: MemoryLayout<pw_emitter>.size, context: UnsafeMutableRawPointer(bitPattern: call),
            emit: emitObservation)
        defer {
            calls.withLock { c in
                c.running.removeValue(forKey: call)
                // A late emit names a call at most `slotCount` calls old (its slot is reused after).
                if call >= UInt(slotCount) { c.returned.removeValue(forKey: call - UInt(slotCount)) }
                if let late { c.returned[call] = late }
            }
            collector.close()
        }
        return body(UnsafePointer(slot))
    }

    /// The collector of a running call; nil when the call has returned (the emit is then
    /// counted against its instance).
    static func collector(for context: UnsafeMutableRawPointer?) -> (any ObservationAccepting)? {
        guard let context else { return nil }
        let call = UInt(bitPattern: context)
        return calls.withLock { c in
            if let running = c.running[call] { return running }
            c.returned[call]?.count()
            return nil
        }
    }
}

/// Emits an instance's plug-in made after their call returned: refused (PW_ERR) as they come,
/// and said with the instance's next call (`problem`), so that the agent warns of it once per
/// probe and `ProbeTester` fails on it, rather than the emit vanishing unseen.
public final class LateEmits: Sendable {
    private let counted = Atomic<Int>(0)

    public init() {}

    func count() { counted.add(1, ordering: .relaxed) }

    /// The emits refused since the last take.
    public func take() -> Int { counted.exchange(0, ordering: .relaxed) }

    /// What the call after them says of them, in every tool.
    public static let problem =
        "an emit came after its call had returned: refused (PW_ERR); a plug-in emits only while its call runs"
}

/// The C entry of the emitter: finds the running call named by the context, if any.
private let emitObservation: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<pw_observation>?) -> Int32 = {
    context, observation in
    // Called after its call returned: refused, and nothing of the host's is touched.
    guard let collector = EmitterSlots.collector(for: context) else { return PW_ERR }
    return collector.accept(observation)
}
