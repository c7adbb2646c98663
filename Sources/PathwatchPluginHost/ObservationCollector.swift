import CPathwatchProbe
import PathwatchProbeKit
import PathwatchProbeRules
import PathwatchSinkKit

/// Receives observations through the C emitter, through the SDK's `ObservationGate` — the one
/// validator the agent and `ProbeTester` share — and keeps what it accepts as Swift values
/// (inline) or straight in the result record a plug-in's child sends (no values made only to be
/// written). A malformed observation is refused (emit returns PW_ERR and the reason is logged
/// with the probe's id), never trusted; once the call has returned the gate refuses everything.
package final class ObservationCollector: ObservationAccepting {
    package typealias Limits = ObservationLimits

    /// Appended to a message cut at `Limits.messageBytes`.
    package static let truncationMarker = ObservationLimits.truncationMarker

    /// What accepted observations become in this process.
    package struct Kept: ObservationKeeping {
        package var values = KeptObservations()
        package var record: ResultRecordWriter?
        package var count: Int { record?.observationCount ?? values.count }
        package mutating func keep(_ observation: CheckedObservation) {
            if record != nil { record!.observation(observation) } else { values.keep(observation) }
        }
    }

    private let gate: ObservationGate<Kept>

    /// `maxObservations`: the probe's `max_observations`, at most `Limits.observationsPerCall`.
    /// With `record`, accepted observations are written into a result record of that kind (a
    /// plug-in's child) instead of being kept as values. Metric names are read by `metrics`.
    package init(
        maxObservations: Int = Limits.observationsPerCall, record: ResultFrames.Kind? = nil,
        metrics: MetricCatalog = .undeclared
    ) {
        gate = ObservationGate(
            Kept(record: record.map { ResultRecordWriter(kind: $0) }), maxObservations: maxObservations,
            catalog: metrics)
    }

    package var observations: [Observation] { gate.withKept { kept, _ in kept.values.observations } }
    package var problems: [String] { gate.problems }
    package var refusedCount: Int { gate.refusedCount }
    /// Says a problem found outside this call's emits (LateEmits) among this call's.
    package func note(_ problem: String) { gate.note(problem) }

    /// The result record with the plug-in's error and the problems; nil for a collector that
    /// keeps values.
    package func finishedRecord(error: String?) -> [UInt8]? {
        let refused = gate.refusedCount
        return gate.withKept { kept, problems in
            kept.record.map { $0.finished(error: error, problems: problems, refused: refused) }
        }
    }

    /// Refuses every emit from now on: the call it was handed to has returned.
    package func close() { gate.close() }

    package func accept(_ raw: UnsafePointer<pw_observation>?) -> Int32 { gate.accept(raw) }
}
