import PathwatchBase
import PathwatchProbeRules
import PathwatchSinkKit

/// What a host that watches an event-driven instance's descriptor itself (a plug-in's child)
/// tells the probe's runner about that descriptor, which the runner shows in the probe's health
/// as it does for a descriptor it watches itself.
package enum EventDescriptorNotice: Sendable, Equatable {
    /// It stays readable after each `handle_event`: the plug-in does not drain it, and it is
    /// served once a second (DrainGuard).
    case undrained
    /// It went unready again: served as it becomes readable.
    case drainsAgain
    /// The instance that held it ended with its child: whatever was said of it is void.
    case instanceEnded

    /// As it crosses from a plug-in's child to the agent, in a frame's `event_descriptor`.
    package var wireName: String {
        switch self {
        case .undrained: "undrained"
        case .drainsAgain: "drains_again"
        case .instanceEnded: "instance_ended"
        }
    }

    package init?(wireName: String) {
        switch wireName {
        case "undrained": self = .undrained
        case "drains_again": self = .drainsAgain
        default: return nil
        }
    }

    package init(_ change: DrainGuard.Change) {
        self = change == .throttled ? .undrained : .drainsAgain
    }

    /// The probe's `last_error` while its descriptor is undrained.
    package static let problem = DescriptorDrain.problem
}
