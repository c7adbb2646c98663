import PathwatchAgent

extension RemoteWriteSinkSettings {
    /// Two sinks writing to one URL would share a queue folder under `state_dir`.
    public var exclusiveClaim: SinkClaim? {
        SinkClaim(key: "remote_write\n\(url)", field: "url", clash: "two remote_write sinks write to the same URL")
    }

    /// Queue lock, cursor, two segments, a connection.
    public var descriptorEstimate: Int { 8 }

    /// It compresses with libsnappy, and its queue needs a folder it can write.
    public func checkHost(_ context: SinkHostContext) throws(SinkProblem) -> SinkClaim? {
        guard Snappy.available else {
            throw SinkProblem(
                .field("type"), "a remote_write sink needs snappy (libsnappy.so.1, Debian's libsnappy1v5), which cannot be loaded")
        }
        if let problem = ConfigHostChecks.writableFolderProblem(context.stateDirectory, mayCreate: true) {
            throw SinkProblem(.location("agent.state_dir"), "the remote_write queue's folder \(context.stateDirectory) \(problem)")
        }
        return nil
    }

    public func makeSink(_ context: SinkContext) -> any Sink {
        RemoteWriteSink(settings: self, stateDirectory: context.stateDirectory, interval: context.interval, logger: context.logger)
    }
}

extension SinkKind {
    /// The `/metrics` series, each probe's at its reports, pushed with Prometheus remote write;
    /// it takes every report.
    public static let remoteWrite = SinkKind(type: "remote_write", settings: RemoteWriteSinkSettings.self, triggers: .fixed([.every]))
}
