import PathwatchAgent

/// Makes the webhook sinks a configuration names.
enum WebhookSinks {
    static let make: @Sendable (WebhookSinkSettings, Set<SinkTrigger>, String, AgentLogger) -> any Sink = {
        settings, triggers, stateDirectory, logger in
        WebhookSink(settings: settings, triggers: triggers, stateDirectory: stateDirectory, logger: logger)
    }
}
