import PathwatchSinkKit

/// What every pushing sink needs of the host: the library its format loads on first use, and a
/// state folder it can write (a read-only one would silently hold every record in memory).
package enum PushHostChecks {
    /// `missingLibrary` names the library when it cannot be loaded (`snappy (libsnappy.so.1, …)`).
    package static func check(type: String, missingLibrary: String?, _ context: SinkHostContext) throws(SinkProblem) {
        if let missingLibrary {
            throw SinkProblem(.field("type"), "a \(type) sink needs \(missingLibrary), which cannot be loaded")
        }
        if let problem = WritableFolder.problem(context.stateDirectory, mayCreate: true) {
            throw SinkProblem(
                .location("agent.state_dir"), "the \(type) queue's folder \(context.stateDirectory) \(problem)")
        }
    }
}

extension PushDelivery {
    /// The sink a pushing kind's settings make: this delivery under the one sink runner.
    /// `secrets` are what the redactor must hide besides the URL's own credentials.
    package static func sink(format: Format, secrets: [String], _ context: SinkContext) -> any Sink {
        let delivery = PushDelivery(
            format: format, triggers: context.triggers, stateDirectory: context.stateDirectory, secrets: secrets,
            logger: context.logger, clock: context.clock)
        return SinkRunner(delivery, clock: context.clock)
    }
}
