import PathwatchProbeKit

/// One change of one check's state (contract §4). The id is made once, so every redelivery of the
/// event carries the same id and receivers can drop duplicates.
package struct ChangeEvent: Sendable {
    package var id: String
    package var agent: String
    package var check: String
    package var probe: String
    package var from: CheckState?
    package var to: CheckState
    package var at: WallTime
    package var message: String
    package var path: PathSummary
    /// A quiet window or a silence (`agent.quiet`, `pathwatch silence`) covered the check: the
    /// change is recorded and shown, marked, but notifiers do not send it.
    package var silenced = false

    package init(
        id: String, agent: String, check: String, probe: String, from: CheckState?, to: CheckState, at: WallTime,
        message: String, path: PathSummary, silenced: Bool = false
    ) {
        self.id = id
        self.agent = agent
        self.check = check
        self.probe = probe
        self.from = from
        self.to = to
        self.at = at
        self.message = message
        self.path = path
        self.silenced = silenced
    }
}
