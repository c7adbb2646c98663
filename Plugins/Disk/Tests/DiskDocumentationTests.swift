import Foundation
import PathwatchJSON
import PathwatchProbeKit
import Testing

@testable import DiskProbe

/// The README quotes sample.json, and sample.json is a configuration the probe accepts: the
/// documentation cannot drift from the code unnoticed.
@Suite struct DiskDocumentationTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    @Test func theReadmeQuotesSampleJSONVerbatim() throws {
        let sample = try String(contentsOf: Self.folder.appendingPathComponent("sample.json"), encoding: .utf8)
        let readme = try String(contentsOf: Self.folder.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("```json\n" + sample + "```"))
    }

    @Test func sampleJSONIsAValidProbeEntryAndDocumentsEveryKey() throws {
        let text = try String(contentsOf: Self.folder.appendingPathComponent("sample.json"), encoding: .utf8)
        let entry = try #require(try JSONParser.parse(text).objectValue)
        #expect(entry["plugin"] == "disk")
        let config = try #require(entry["config"])
        let decoded = try JSONValueDecoder().decode(DiskConfig.self, from: config)
        try decoded.validate()
        let keys = Set(try #require(config.objectValue).keys)
        #expect(keys == Set(DiskConfig.CodingKeys.allCases.map(\.rawValue)))
    }
}
