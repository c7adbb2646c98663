import PathwatchAgent

/// What the agent is handed to make the webhook sinks its configuration names.
public enum WebhookSinks {
    public static let make: WebhookSinkMaker = { settings, triggers, stateDirectory, logger in
        WebhookSink(settings: settings, triggers: triggers, stateDirectory: stateDirectory, logger: logger)
    }
}
