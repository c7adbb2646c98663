import Foundation
import Logging
import PathwatchQueue
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchHTTPOut
@testable import PathwatchSinkKit
@testable import PathwatchWebhook

/// What a webhook sink's status says, from its parts: the disk queue's counts, what waits in
/// memory, what was lost before the disk, and which error outranks which.
@Suite struct WebhookHealthTests {
    let logger = AgentLogger(logger: Logger(label: "test"), redactor: SecretRedactor())

    func health() throws -> DeliveryHealth {
        DeliveryHealth(
            type: "webhook", noun: "payloads",
            target: try #require(WebhookTarget("https://user:pw@hooks.example.com/in?token=x")), logger: logger)
    }

    func withFolder(_ body: (String) throws -> Void) throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        try body(dir.path + "/queue")
    }

    func record(_ n: Int) -> QueueRecord {
        QueueRecord(kind: 1, id: "id-\(n)", enqueuedAtMilliseconds: 0, body: [UInt8(n)])
    }

    @Test func queuedAndDroppedAddUpEverythingTheSinkHolds() throws {
        try withFolder { folder in
            let health = try health()
            let queue = try DurableQueue(folder: folder, limits: .init(records: 2, bytes: 1 << 20))
            _ = try queue.append((1...3).map(record))
            let head = try #require(try queue.head())
            try queue.complete(head.entry, as: .rejected)
            health.observe(queue)
            _ = health.holding(4, because: "the state disk is full (test)")
            health.countLost(5)
            let status = health.status()
            #expect(status.type == "webhook" && status.target.hasPrefix("https://hooks.example.com"))
            #expect(!status.target.contains("pw@") && !status.target.contains("token"), "\(status.target)")
            #expect(status.queued == 1 + 4)
            #expect(status.dropped == 1 + 1 + 5 && status.rejected == 1)
        }
    }

    @Test func aStateDiskThatRefusesOutranksDeliveryErrorsUntilItTakesPayloadsAgain() throws {
        let health = try health()
        #expect(health.holding(3, because: "the state disk is full (test)"), "the first time is news")
        #expect(!health.holding(4, because: "the state disk is full (test)"))
        health.noteError("HTTP 500")
        #expect(
            health.status().lastError?.hasSuffix("the state disk is full (test); 4 payloads held in memory")
                == true)
        #expect(health.diskTookHeldRecords() == 4)
        #expect(health.status().lastError?.hasSuffix("HTTP 500") == true)
        #expect(health.heldInMemory == 0)
    }

    @Test func aBusyFolderIsNoNewsAtFirst() throws {
        try withFolder { folder in
            let health = try health()
            let owner = try DurableQueue(folder: folder, limits: .init(records: 10, bytes: 1 << 20))
            var opening = QueueOpening(folder: folder, limits: .init(records: 10, bytes: 1 << 20))
            #expect(opening.open(name: "webhook test", logger: logger, health: health) == nil)
            #expect(opening.isBusy)
            #expect(health.status().lastError == nil, "a sink being replaced lets go within moments")
            owner.close()
            let reopened = opening.open(name: "webhook test", logger: logger, health: health)
            #expect(reopened != nil && !opening.isBusy)
            reopened?.close()
        }
    }
}
