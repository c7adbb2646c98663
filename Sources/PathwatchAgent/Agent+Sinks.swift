extension SinkConfig {
    /// The running sink this entry describes, in the setting of `loaded`.
    func makeSink(in loaded: LoadedConfig, logger: AgentLogger) -> any Sink {
        settings.makeSink(
            SinkContext(
                triggers: on, baseDirectory: loaded.baseDirectory, stateDirectory: loaded.stateDirectory,
                interval: loaded.config.agent.interval, logger: logger))
    }
}
