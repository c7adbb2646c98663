import PathwatchBase
import PathwatchSinkKit

extension FileSinkSettings {
    /// Two file sinks writing one file would replace each other's documents.
    package var exclusiveClaim: SinkClaim? {
        SinkClaim(key: path, field: "path", clash: "two file sinks write \"\(path)\"")
    }

    /// Its folder must exist and take new files (each write is a temporary file renamed over
    /// the target), and the target must be a regular file or a name not yet taken. Its claim is
    /// the file under its one spelling: "a/../b.json" and a folder reached through a link name
    /// the same file as "b.json".
    package func checkHost(_ context: SinkHostContext) throws(SinkProblem) -> SinkClaim? {
        let resolved = resolvePath(path, relativeTo: context.baseDirectory)
        let folder = directoryName(resolved)
        if let problem = WritableFolder.problem(folder, mayCreate: false) {
            throw SinkProblem(.field("path"), "the folder \(folder) \(problem)")
        }
        if let problem = FileSinkTarget.problem(resolved) {
            throw SinkProblem(.field("path"), "\(resolved) \(problem)")
        }
        return FileSinkTarget.canonicalName(resolved).map {
            SinkClaim(key: $0, field: "path", clash: "two file sinks write \($0)")
        }
    }

    package func makeSink(_ context: SinkContext) -> any Sink {
        let file = FileSink(
            path: resolvePath(path, relativeTo: context.baseDirectory), pretty: pretty, format: format, mode: mode,
            triggers: context.triggers, spacing: context.interval, logger: context.logger, clock: context.clock)
        return SinkRunner(file, clock: context.clock)
    }
}

extension SinkKind {
    /// The latest document (or its metrics) in a file replaced atomically; after every report
    /// unless told otherwise.
    package static let file = SinkKind(
        type: "file", settings: FileSinkSettings.self, triggers: .configurable(default: [.every]))
}
