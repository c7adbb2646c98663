import PathwatchPluginHost
import PathwatchSinkKit
import Synchronization

/// What one probe's runner knows about its event descriptor, from its own watch (inline) or from
/// the child that watches it (process): while the plug-in does not drain it, the probe's health
/// says so (its `last_error`, when the host has no worse error) and the log has said it once, as
/// a warning naming the probe; when it drains again, both clear, and the log says so at info.
final class EventDescriptorHealth: Sendable {
    private let probeID: String
    private let logger: AgentLogger
    private let undrained = Mutex(false)

    init(probeID: String, logger: AgentLogger) {
        self.probeID = probeID
        self.logger = logger
    }

    /// The problem to show in the probe's health, if any.
    var problem: String? { undrained.withLock { $0 } ? EventDescriptorNotice.problem : nil }

    func note(_ notice: EventDescriptorNotice) {
        let was = undrained.withLock { u -> Bool in
            defer { u = notice == .undrained }
            return u
        }
        switch notice {
        case .undrained where !was:
            logger.warning("probe \(probeID): \(EventDescriptorNotice.problem)")
        case .drainsAgain where was:
            logger.info("probe \(probeID): its event descriptor drains again; served as it becomes readable")
        case .instanceEnded where was:
            logger.debug("probe \(probeID): the instance whose event descriptor was throttled ended with its child")
        default:
            break
        }
    }
}
