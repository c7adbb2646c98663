import CPathwatchProbe
import Synchronization

/// What an emitter feeds: the agent's collector, or ProbeTester's gate.
public protocol ObservationAccepting: AnyObject, Sendable {
    /// emit(): PW_OK or PW_ERR.
    func accept(_ raw: UnsafePointer<pw_observation>?) -> Int32
    /// Refuses every emit from now on.
    func close()
}

extension ObservationGate: ObservationAccepting {}

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
    private static let running = Mutex<[UInt: any ObservationAccepting]>([:])

    /// Runs `body` with an emitter that feeds `collector`, and closes it when `body` returns:
    /// from then on every emit through it is refused.
    public static func withEmitter<R>(for collector: any ObservationAccepting, _ body: (UnsafePointer<pw_emitter>) -> R)
        -> R
    {
        let call = nextCall.add(1, ordering: .relaxed).oldValue
        running.withLock { $0[call] = collector }
        let slot = slots + Int(call % UInt(slotCount))
        slot.pointee = pw_emitter(
            struct_size: MemoryLayout<pw_emitter>.size, context: UnsafeMutableRawPointer(bitPattern: call),
            emit: emitObservation)
        defer {
            running.withLock { _ = $0.removeValue(forKey: call) }
            collector.close()
        }
        return body(UnsafePointer(slot))
    }

    /// The collector of a running call, or nil when the call has returned.
    static func collector(for context: UnsafeMutableRawPointer?) -> (any ObservationAccepting)? {
        guard let context else { return nil }
        let call = UInt(bitPattern: context)
        return running.withLock { $0[call] }
    }
}

/// The C entry of the emitter: finds the running call named by the context, if any.
private let emitObservation: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<pw_observation>?) -> Int32 = {
    context, observation in
    // Called after its call returned: refused, and nothing of the host's is touched.
    guard let collector = EmitterSlots.collector(for: context) else { return PW_ERR }
    return collector.accept(observation)
}
