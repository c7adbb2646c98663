import CPathwatchProbe
import PathwatchProbeKit
import Synchronization

/// Receives observations through the C emitter and copies them into Swift values (inline), or
/// straight into the result record a plug-in's child sends (no values made only to be written),
/// checking everything a plug-in could get wrong (`CheckedObservation`): sizes, null pointers,
/// states out of range, non-finite metrics, malformed or repeated keys. A malformed observation
/// is refused (emit returns PW_ERR and the reason is logged with the probe's id), never trusted.
///
/// A plug-in may emit from threads of its own while its call runs, so the collector is locked;
/// once the call has returned it is closed and refuses everything.
final class ObservationCollector: Sendable {
    /// The limits a plug-in's output is held to; the header and the README list them too.
    enum Limits {
        static let observationsPerCall = 100_000
        static let itemsPerObservation = 1_024
        /// Characters of a check key.
        static let keyLength = 256
        /// Bytes of a message: a longer one is cut (at a character boundary) and marked.
        static let messageBytes = 4_096
        /// Bytes of a metric name, a label name or a label value: a longer one is refused.
        static let textBytes = 65_535
    }

    /// Appended to a message cut at `Limits.messageBytes`.
    static let truncationMarker = " [truncated by pathwatch]"

    private struct State {
        /// What the call's accepted observations became: Swift values, or a result record.
        var observations: [Observation] = []
        var record: ResultRecordWriter?
        var accepted: Int { record?.observationCount ?? observations.count }
        var keys: Set<String> = []
        var problems: [String] = []
        var closed = false
        var overLimit = false
    }
    private let state: Mutex<State>
    private let maxObservations: Int

    /// `maxObservations`: the probe's `max_observations`, at most `Limits.observationsPerCall`.
    /// With `record`, accepted observations are written into a result record of that kind (a
    /// plug-in's child) instead of being kept as values.
    init(maxObservations: Int = Limits.observationsPerCall, record: ResultFrames.Kind? = nil) {
        self.maxObservations = min(maxObservations, Limits.observationsPerCall)
        state = Mutex(State(record: record.map { ResultRecordWriter(kind: $0) }))
    }

    var observations: [Observation] { state.withLock { $0.observations } }
    var problems: [String] { state.withLock { $0.problems } }

    /// The result record with the plug-in's error and the problems; nil for a collector that
    /// keeps values.
    func finishedRecord(error: String?) -> [UInt8]? {
        state.withLock { s in s.record.map { $0.finished(error: error, problems: s.problems) } }
    }

    /// Refuses every emit from now on: the call it was handed to has returned.
    func close() { state.withLock { $0.closed = true } }

    func accept(_ raw: UnsafePointer<pw_observation>?) -> Int32 {
        switch CheckedObservation.check(raw) {
        case .failure(let problem):
            return refuse(problem.description)
        case .success(let checked):
            return state.withLock { s in
                guard !s.closed else { return PW_ERR }
                s.problems += checked.dropped
                guard s.accepted < maxObservations else {
                    if !s.overLimit { s.problems.append("more than \(maxObservations) observations in one call; the rest refused") }
                    s.overLimit = true
                    return PW_ERR
                }
                guard s.keys.insert(checked.key).inserted else {
                    s.problems.append("check \"\(checked.key)\": a second observation with this key in one call; refused, the first kept")
                    return PW_ERR
                }
                // Copied while the plug-in's emit call still holds its texts.
                if s.record != nil {
                    s.record!.observation(checked)
                } else {
                    s.observations.append(checked.observation)
                }
                return PW_OK
            }
        }
    }

    private func refuse(_ problem: String) -> Int32 {
        state.withLock { s in
            if !s.closed { s.problems.append(problem) }
        }
        return PW_ERR
    }
}
