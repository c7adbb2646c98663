import PathwatchHTTPSinkSettings
import PathwatchSinkKit

extension HTTPSinkSettings: SinkMaking {
    package func makeSink(_ context: SinkContext) -> any Sink {
        SinkRunner(HTTPSink(settings: self, logger: context.logger), clock: context.clock)
    }
}

extension SinkKind {
    /// The http kind with its server: what the agent's executable registers. Each `tls` file
    /// is read and checked as the entry is decoded, so an unreadable, mismatched, expired or
    /// wrong-purpose file is a configuration error at its JSON path; a renewal later is checked
    /// the same way before it is used (TLSContextWatcher).
    package static let httpServer = SinkKind.http.runnable(by: HTTPSinkSettings.self) { settings, decoder in
        guard let tls = settings.tls else { return }
        do throws(TLSMaterialError) {
            _ = try TLSMaterial.load(tls)
        } catch {
            let path = decoder.codingPath + [TLSKey.tls, error.field] as [any CodingKey]
            throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: error.reason))
        }
    }

    private enum TLSKey: String, CodingKey { case tls }
}
