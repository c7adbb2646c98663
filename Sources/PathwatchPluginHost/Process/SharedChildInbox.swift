import PathwatchJSON
import PathwatchSinkKit

/// Where the child's reader thread delivers one instance's frames: the reply to its call in
/// flight (the mailbox), its events and its word on its event descriptor. The reader finds an
/// instance's inbox under a lock of its own (`SharedChild.inboxes`), not under the state lock
/// that each of a thousand probes' calls takes twice and every status read of their health
/// takes: with a thousand `loadavg` probes the reader spent a fifth of its time spinning on
/// that lock, one frame at a time.
package struct SharedChildInbox: Sendable {
    package let mailbox: Mailbox
    package var events: (@Sendable (CallResult) -> Void)?
    /// Where the child's word on the instance's event descriptor goes (the probe's runner).
    package var descriptorNotices: (@Sendable (EventDescriptorNotice) -> Void)?

    /// A frame from the child for this instance, on the child's reader thread.
    package func take(_ message: ChildProcess.Message) {
        switch message {
        case .event(let result):
            // A malformed event is dropped; the instance's next sample says what it sees.
            if let result { events?(result) }
        case .sampled(let result): mailbox.post(.sampled(result))
        case .frame(let frame):
            // Said of its own accord, not a reply: it must not answer a call in flight.
            if let said = frame["event_descriptor"] {
                if let notice = said.stringValue.flatMap(EventDescriptorNotice.init(wireName:)) {
                    descriptorNotices?(notice)
                }
                return
            }
            mailbox.post(.frame(frame))
        case .ended: break
        }
    }
}
