import PathwatchProbeKit

/// The agent's call frames to a plug-in's child carry the call's deadline, and `create` the
/// probe's timeout (for the deadlines of events the child serves itself), as decimal text: a
/// JSON number is a double, which cannot hold every nanosecond count exactly, and the child
/// must hand its plug-in the very deadline the agent holds.
enum CallFrames {
    static func sample(by deadline: Deadline) -> JSONValue {
        ["call": "sample", "deadline_ns": text(deadline.monotonicNanoseconds)]
    }

    static func create(config: String, by deadline: Deadline, probeTimeout: ConfigDuration) -> JSONValue {
        ["call": "create", "config": .string(config), "deadline_ns": text(deadline.monotonicNanoseconds), "timeout_ns": text(probeTimeout.nanoseconds)]
    }

    /// The deadline a call frame carries; nil when it carries none.
    static func deadline(in frame: JSONValue) -> Deadline? {
        number(frame["deadline_ns"]).map(Deadline.init(monotonicNanoseconds:))
    }

    /// The probe's timeout a create frame carries.
    static func timeout(in frame: JSONValue) -> ConfigDuration? {
        number(frame["timeout_ns"]).map(ConfigDuration.init(nanoseconds:))
    }

    private static func text(_ value: Int64) -> JSONValue { .string(String(value)) }

    private static func number(_ value: JSONValue?) -> Int64? {
        guard let text = value?.stringValue, let number = Int64(text), number > 0 else { return nil }
        return number
    }
}
