import CFaultReport
import PathwatchBase
import PathwatchJSON
import PathwatchPluginHost
import PathwatchProbeKit
import PathwatchProbeRules

/// The child side of `pathwatch plugins --try`: in a process of its own, loads one library,
/// creates an instance from the given config, samples it once (with `watch`, then serves its
/// event descriptor's readiness for a while: TrialWatch) and destroys it, writing each step as
/// one JSON line to the report descriptor before and after it. Whatever the plug-in then does
/// to this process (crash, exit, hang, print), the parent still knows how far it got.
package enum PluginTrialChild {
    /// The descriptor the parent reads the report from (stdout and stderr are the plug-in's).
    package static let reportDescriptor: Int32 = 3
    /// Where the child hands its call guard's listener to the command trying it.
    package static let supervisionDescriptor: Int32 = 4

    /// `timeout` is the probe's, and create and sample get the deadlines the agent gives them:
    /// create the probe's timeout but at least 5 s, sample the timeout from its start; a call
    /// still running the grace after its deadline ends the child (TrialCallWatch).
    /// `configArgument` is the probe's config as JSON text or `@FILE` (TrialInputs.probeConfig).
    /// `watch`: how long to watch an event-driven plug-in's descriptor after the sample, and each
    /// event's deadline.
    package static func run(
        file: String, configArgument: String, timeout: ConfigDuration,
        watch: (duration: ConfigDuration, eventTimeout: ConfigDuration)? = nil, strict: Bool = false
    ) -> Int32 {
        AgentSignalGuard.install(supervision: supervisionDescriptor)
        // No instance to name (-1: nothing is written for it), but a fault still says on stderr
        // which call it was in and where it happened, which the trial prints.
        pw_fault_report_install(-1)
        let calls = TrialCallWatch(say: send)
        guard let plugin = load(file, watching: watch != nil) else { return 1 }
        let createTimeout = CallDeadlines.createTimeout(probeTimeout: timeout)
        let created = MonotonicClock.nowNanoseconds()
        calls.arm("create", timeout: createTimeout, from: created)
        let made = create(
            plugin, configArgument: configArgument,
            deadline: CallDeadlines.deadline(from: created, after: createTimeout))
        calls.done()
        guard let instance = made else { return 1 }
        report(["stage": .string("sample")])
        let started = MonotonicClock.nowNanoseconds()
        calls.arm("sample", timeout: timeout, from: started)
        let result = instance.sample(by: CallDeadlines.deadline(from: started, after: timeout))
        calls.done()
        // Strict: apart from the problems, since the agent takes these and refuses those.
        let undeclared = strict ? UndeclaredMetrics.problems(result.observations, catalog: plugin.metrics) : []
        send(step("sampled", result, undeclared: undeclared))
        var watchFailed = false
        if let watch, let fd = instance.eventFileDescriptor() {
            report(["stage": .string("watch"), "seconds": .number(watch.duration.seconds)])
            let watched = TrialWatch(duration: watch.duration, eventTimeout: watch.eventTimeout).run(
                instance, descriptor: fd
            ) { send($0) }
            report(["stage": .string("watched"), "events": .number(Double(watched.events))])
            watchFailed = watched.failed
        }
        report(["stage": .string("destroy")])
        instance.destroy()
        report(["stage": .string("done")])
        return result.error == nil && !watchFailed ? 0 : 1
    }

    /// Loads `file` and reports what it is; nil (reported) when it cannot be loaded, or when
    /// `watching` asks for what the plug-in cannot do.
    private static func load(_ file: String, watching: Bool) -> LoadedPlugin? {
        report(["stage": .string("load")])
        let plugin: LoadedPlugin
        switch PluginLoader.load(file) {
        case .failure(let refusal):
            report(["stage": .string("load"), "error": .string(refusal.reason)])
            return nil
        case .success(let loaded):
            plugin = loaded
        }
        report([
            "stage": .string("loaded"), "name": .string(plugin.name), "version": .string(plugin.version),
            "abi": .number(Double(plugin.abiVersion)), "description": .string(plugin.summary),
            "event_driven": .bool(plugin.isEventDriven),
        ])
        if watching, !plugin.isEventDriven {
            // Said before create: nothing else is tried when what was asked for cannot be done.
            report([
                "stage": .string("watch"),
                "error": .string(
                    "--watch needs an event-driven plug-in; \(plugin.name) has no event_fd and handle_event, so there is "
                        + "nothing to watch (it is only sampled: try it without --watch)"),
            ])
            return nil
        }
        return plugin
    }

    /// An instance of `plugin` from the config argument; nil (reported) when it cannot be made.
    private static func create(_ plugin: LoadedPlugin, configArgument: String, deadline: Deadline) -> ProbeInstance? {
        report(["stage": .string("create")])
        let configJSON: String
        do {
            configJSON = try TrialInputs.probeConfig(configArgument)
        } catch {
            report(["stage": .string("create"), "error": .string(error.description)])
            return nil
        }
        switch ProbeInstance.create(plugin: plugin, configJSON: configJSON, deadline: deadline) {
        case .failure(let error):
            report([
                "stage": .string("create"),
                "error": .string("\(error.path.isEmpty ? "" : "config.\(error.path): ")\(error.message)"),
            ])
            return nil
        case .success(let created):
            return created
        }
    }

    /// What one call emitted, as a step of the report (`stage` "sampled" or "event").
    static func step(_ stage: String, _ result: CallResult, undeclared: [String] = []) -> JSONValue {
        [
            "stage": .string(stage), "observations": .array(result.observations.map(json)),
            "problems": .array(result.problems.map(JSONValue.string)), "refused": .number(Double(result.refused)),
            "error": result.error.map(JSONValue.string) ?? .null,
            "undeclared": .array(undeclared.map(JSONValue.string)),
        ]
    }

    static func json(_ o: Observation) -> JSONValue {
        .object(
            JSONObject([
                ("key", .string(o.key)), ("state", .string(o.state.name)), ("message", .string(o.message)),
                ("metrics", .object(JSONObject(o.metrics.map { ($0.seriesName, JSONValue.number($0.value)) }))),
                ("labels", .object(JSONObject(o.labels.map { ($0.name, JSONValue.string($0.value)) }))),
            ]))
    }

    private static func report(_ members: KeyValuePairs<String, JSONValue>) {
        send(.object(JSONObject(members.map { ($0.key, $0.value) })))
    }

    @Sendable private static func send(_ step: JSONValue) {
        FileDescriptorWriter.writeAll(reportDescriptor, JSONSerializer.serialize(step) + "\n")
    }
}
