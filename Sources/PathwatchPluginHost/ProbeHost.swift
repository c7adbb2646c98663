import PathwatchProbeKit
import PathwatchSinkKit

/// Every call the agent makes into a plug-in instance goes through a host: `ProbeInstance`
/// calls it in this process (`inline`), `ProcessProbeHost` in a supervised child (`process`).
/// Calls to one host are serialised by its caller (a ProbeRunner's queue), and may block for
/// as long as the plug-in does; they run on threads of their own, never on Swift concurrency's
/// cooperative pool.
package protocol ProbeHost: AnyObject, Sendable {
    var plugin: LoadedPlugin { get }
    var isolation: Isolation { get }
    /// Takes one sample; the plug-in is told `deadline` (contract §6 "Deadlines").
    func sample(by deadline: Deadline) -> CallResult
    /// Takes one sample and hands its result to `done`. By default on this thread once
    /// `sample(by:)` returns; a host whose answer arrives on a thread of its own (a child's
    /// reader) lets this thread go at once and calls `done` there.
    func sample(by deadline: Deadline, then done: @escaping @Sendable (CallResult) -> Void)
    /// The descriptor the probe's runner should watch (inline event-driven probes); nil when
    /// there is none or the host watches it itself.
    func eventFileDescriptor() -> Int32?
    /// Serves readiness of `eventFileDescriptor()`; the plug-in is told `deadline`.
    func handleEvent(by deadline: Deadline) -> CallResult
    /// Where results of events the host watches itself go (a child polls its plug-in's
    /// descriptor and streams what it emits).
    func forwardEvents(to deliver: @escaping @Sendable (CallResult) -> Void)
    /// Where what the host notices about the event descriptor it watches itself goes (a child
    /// that throttles a descriptor its plug-in does not drain says so). By default nothing:
    /// a descriptor the runner watches is guarded by the runner.
    func forwardDescriptorNotices(to notice: @escaping @Sendable (EventDescriptorNotice) -> Void)
    /// The running call overran its deadline by more than the grace. A child is killed (and
    /// restarted); an inline call cannot be stopped and keeps its thread until it returns.
    func abandonRunningCall(reason: String)
    /// The probe is being stopped with a call inside its plug-in (by default, given up on as
    /// `abandonRunningCall` would).
    func abandonRunningCallToStop()
    /// An answer to the running call may have come in time and not been read yet: the channel it
    /// comes on holds unread bytes, or its reader is busy with what it read. The call is then not
    /// given up on yet (the agent is behind, not the plug-in). By default false: an inline
    /// call's answer is its return.
    var answerMayBeUnread: Bool { get }
    /// How the host itself is doing, for the status document and `pathwatch plugins`.
    var health: ProbeHealth { get }
    func destroy()
}

extension ProbeHost {
    package func sample(by deadline: Deadline, then done: @escaping @Sendable (CallResult) -> Void) {
        done(sample(by: deadline))
    }
    package func abandonRunningCallToStop() { abandonRunningCall(reason: "stopped") }
    package var answerMayBeUnread: Bool { false }
    package func forwardDescriptorNotices(to notice: @escaping @Sendable (EventDescriptorNotice) -> Void) {}
}
