import PathwatchBase
import PathwatchJSON
import PathwatchProbeKit
import PathwatchSinkKit

/// The agent's call frames to a plug-in's child carry the call's deadline, and `create` the
/// probe's timeout (for the deadlines of events the child serves itself), as decimal text: a
/// JSON number is a double, which cannot hold every nanosecond count exactly, and the child
/// must hand its plug-in the very deadline the agent holds.
///
/// Every call names the instance it is for (`instance`, a decimal number from 1): the child hosts
/// every probe of its plug-in file, each its own instance.
package enum CallFrames {
    package static func sample(instance: UInt32, by deadline: Deadline) -> JSONValue {
        ["call": "sample", "instance": .string(String(instance)), "deadline_ns": text(deadline.monotonicNanoseconds)]
    }

    package static func create(
        instance: UInt32, config: String, by deadline: Deadline, probeTimeout: ConfigDuration, maxObservations: Int
    ) -> JSONValue {
        [
            "call": "create", "instance": .string(String(instance)), "config": .string(config),
            "deadline_ns": text(deadline.monotonicNanoseconds), "timeout_ns": text(probeTimeout.nanoseconds),
            "max_observations": text(Int64(maxObservations)),
        ]
    }

    package static func destroy(instance: UInt32) -> JSONValue {
        ["call": "destroy", "instance": .string(String(instance))]
    }

    /// The instance a call frame names; nil when it names none.
    package static func instance(in frame: JSONValue) -> UInt32? {
        number(frame["instance"]).flatMap { UInt32(exactly: $0) }
    }

    /// The observations a create frame allows each call of its instance.
    package static func maxObservations(in frame: JSONValue) -> Int? {
        number(frame["max_observations"]).map { Int($0) }
    }

    /// The deadline a call frame carries; nil when it carries none.
    package static func deadline(in frame: JSONValue) -> Deadline? {
        number(frame["deadline_ns"]).map(Deadline.init(monotonicNanoseconds:))
    }

    /// The probe's timeout a create frame carries.
    package static func timeout(in frame: JSONValue) -> ConfigDuration? {
        number(frame["timeout_ns"]).map(ConfigDuration.init(nanoseconds:))
    }

    private static func text(_ value: Int64) -> JSONValue { .string(String(value)) }

    /// The child's answer to `create` when the plug-in refused its configuration: where and why.
    package static func configRefusal(in frame: JSONValue, plugin: String) -> JSONPathError? {
        guard let refusal = frame["refused_config"] else { return nil }
        return JSONPathError(
            path: JSONPath(parsing: refusal["path"]?.stringValue ?? ""),
            message: refusal["message"]?.stringValue ?? "plug-in \(plugin) refused its configuration without saying why"
        )
    }

    private static func number(_ value: JSONValue?) -> Int64? {
        guard let text = value?.stringValue, let number = Int64(text), number > 0 else { return nil }
        return number
    }
}
