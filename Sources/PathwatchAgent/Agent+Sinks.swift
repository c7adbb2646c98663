import PathwatchSinkKit

extension SinkConfig {
    /// The running sink this entry describes, in the setting of `loaded`, timed on `clock`.
    func makeSink(in loaded: LoadedConfig, logger: AgentLogger, clock: any AgentClock) -> any Sink {
        makeSink(
            SinkContext(
                triggers: on, baseDirectory: loaded.baseDirectory, stateDirectory: loaded.stateDirectory,
                interval: loaded.config.agent.interval, logger: logger, clock: clock))
    }
}

extension LoadedConfig {
    /// What every sink is made with besides its own entry (SinkContext): a reload that changes
    /// it makes every sink anew.
    var sinkSetting: [String] { [baseDirectory, stateDirectory, "\(config.agent.interval)"] }
}
