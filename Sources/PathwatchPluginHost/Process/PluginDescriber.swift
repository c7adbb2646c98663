import PathwatchSinkKit

/// Reads plug-ins' descriptors in a child (`pathwatch plugin-child --describe`), so the agent
/// never maps a library it may run isolated, not even to list it: a constructor that prints,
/// crashes or exits does so in the child, and the file is refused with the cause. One child
/// reads every file in turn; when one ends it, the next child goes on after that file.
package enum PluginDescriber {
    package static let timeoutSeconds = 5.0

    package typealias Outcome = Result<LoadedPlugin, PluginLoader.Refusal>

    package static func describe(_ paths: [String], logger: AgentLogger) -> [String: Outcome] {
        var outcomes: [String: Outcome] = [:]
        var remaining: [String] = []
        for path in paths {
            if let reason = PluginVetting.refusal(forFile: path) {
                outcomes[path] = .failure(PluginLoader.Refusal(reason: reason))
            } else {
                remaining.append(path)
            }
        }
        while !remaining.isEmpty {
            let child: ChildProcess
            switch ChildProcess.start(
                arguments: ["--describe"] + remaining.flatMap { ["--plugin", $0] }, label: { "plug-in loader" },
                logger: logger)
            {
            case .failure(let error):
                for path in remaining { outcomes[path] = .failure(PluginLoader.Refusal(reason: error.reason)) }
                return outcomes
            case .success(let started): child = started
            }
            var reading = true
            while reading, let current = remaining.first {
                let (outcome, goOn) = answer(child.next(within: timeoutSeconds), for: current, from: child)
                outcomes[current] = outcome
                remaining.removeFirst()
                reading = goOn
            }
            child.finish(grace: 0)
        }
        return outcomes
    }

    /// What the child's reply says of `current`, and whether the same child goes on to the next
    /// file (not after it ended, hung or answered out of turn).
    private static func answer(_ reply: ChildProcess.Message?, for current: String, from child: ChildProcess) -> (
        Outcome, Bool
    ) {
        switch reply {
        case .frame(let frame)? where frame["file"]?.stringValue == current:
            if let reason = frame["refused"]?.stringValue {
                return (.failure(PluginLoader.Refusal(reason: reason)), true)
            }
            if let described = frame["described"], let plugin = WireCodec.decodePlugin(described, path: current) {
                return (.success(plugin), true)
            }
            return (
                .failure(
                    PluginLoader.Refusal(reason: "the loading child answered with something else than a descriptor")),
                true
            )
        case .frame?, .sampled?, .event?:
            child.kill()
            return (.failure(PluginLoader.Refusal(reason: "the loading child answered out of turn")), false)
        case .ended(let status)?:
            return (.failure(PluginLoader.Refusal(reason: "\(ChildEnd.describe(status)) while loading")), false)
        case nil:
            child.kill()
            return (
                .failure(
                    PluginLoader.Refusal(
                        reason:
                            "loading did not finish within \(Int(timeoutSeconds))s (a constructor that blocks or spins); killed"
                    )), false
            )
        }
    }
}
