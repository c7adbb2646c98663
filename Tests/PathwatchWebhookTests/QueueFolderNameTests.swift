import Foundation
import Logging
import PathwatchAgent
import PathwatchQueue
import PathwatchSinkKit
import PathwatchTestSupport
import Testing

@testable import PathwatchHTTPOut
@testable import PathwatchWebhook

/// A pushing sink's queue folder under `agent.state_dir` is named by what identifies the
/// receiver's stream only (for a webhook, its format and URL), so a backlog left by an earlier
/// run is found again; a webhook folder named the way releases before the shared delivery layer
/// named it is moved to the current name, with its backlog.
@Suite struct QueueFolderNameTests {
    let logger = AgentLogger(logger: Logger(label: "test"), redactor: SecretRedactor())

    @Test func theQueueFolderIsNamedByFormatAndURLOnly() {
        let a = WebhookPush.folderName(format: .pathwatch, url: "http://127.0.0.1:9000/hook")
        #expect(a == WebhookPush.folderName(format: .pathwatch, url: "http://127.0.0.1:9000/hook"))
        #expect(a != WebhookPush.folderName(format: .slack, url: "http://127.0.0.1:9000/hook"))
        #expect(a != WebhookPush.folderName(format: .pathwatch, url: "http://127.0.0.1:9001/hook"))
        #expect(a == "webhook-aff7c58e684d62f3")
    }

    @Test func aRemoteWriteFolderKeepsTheNameEarlierRunsGaveIt() {
        // The remote_write sink named its folder with this very hash before the layer was shared.
        #expect(
            QueueFolder.name(type: "remote_write", key: "http://127.0.0.1:9090/api/v1/write")
                == "remote_write-7f3749b68686662b")
    }

    @Test func theFormerWebhookNameIsTheOneEarlierRunsGaveIt() {
        #expect(
            WebhookPush.formerFolderName(format: .pathwatch, url: "http://127.0.0.1:9000/hook")
                == "webhook-39293ac685a70623")
    }

    @Test func aFolderUnderItsFormerNameIsMovedWithItsBacklog() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let url = "http://127.0.0.1:9000/hook"
        let former = dir.path + "/" + WebhookPush.formerFolderName(format: .pathwatch, url: url)
        let current = dir.path + "/" + WebhookPush.folderName(format: .pathwatch, url: url)
        let limits = DurableQueue.Limits(records: 10, bytes: 1 << 20)
        let old = try DurableQueue(folder: former, limits: limits)
        _ = try old.append([QueueRecord(kind: 1, id: "kept", enqueuedAtMilliseconds: 1, body: [1])])
        old.close()

        var opening = QueueOpening(folder: current, limits: limits, former: former)
        let health = DeliveryHealth(
            type: "webhook", noun: "payloads", target: try #require(WebhookTarget(url)), logger: logger)
        let opened = opening.open(name: "webhook test", logger: logger, health: health)
        let queue = try #require(opened)
        defer { queue.close() }
        #expect(try queue.head()?.record.id == "kept")
        #expect(!FileManager.default.fileExists(atPath: former))
    }

    @Test func aCurrentFolderWinsOverAFormerOne() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let former = dir.path + "/former"
        let current = dir.path + "/current"
        try FileManager.default.createDirectory(atPath: former, withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: current, withIntermediateDirectories: false)
        #expect(QueueFolder.migrate(from: former, to: current) == nil)
        #expect(FileManager.default.fileExists(atPath: former), "a folder that is not moved is left as it is")
    }
}
