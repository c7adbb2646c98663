import PathwatchProbeKit
import PathwatchTestSupport
import Testing

@testable import PingProbe

/// The pieces of the ping probe that need no network: packets, statistics, configuration.
@Suite(.onItsOwnThread) struct PingUnitTests {
    @Test func checksumIsRFC1071() {
        // RFC 1071's worked example: the one's complement sum of these words is 0xddf2.
        #expect(EchoPacket.checksum([0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]) == ~UInt16(0xddf2))
        // A packet with its checksum filled in sums to zero.
        let packet = EchoPacket.request(v6: false, identifier: 0x1234, sequence: 7, nonce: 42)
        #expect(EchoPacket.checksum(packet) == 0)
        #expect(packet.count == 64 && packet[0] == 8)
    }

    @Test func repliesAreParsedWithOrWithoutTheIPv4Header() throws {
        var reply = EchoPacket.request(v6: false, identifier: 0xbeef, sequence: 3, nonce: 0x0102_0304_0506_0708)
        reply[0] = 0
        let parsed = try #require(EchoPacket.reply(in: reply, v6: false, ipHeader: false))
        #expect(parsed.identifier == 0xbeef && parsed.sequence == 3)
        #expect(EchoPacket.nonce(in: parsed.payload) == 0x0102_0304_0506_0708)
        let withHeader = [0x45] + [UInt8](repeating: 0, count: 19) + reply
        #expect(EchoPacket.reply(in: withHeader, v6: false, ipHeader: true)?.sequence == 3)
        // A request, another type or a truncated message is not a reply.
        #expect(
            EchoPacket.reply(
                in: EchoPacket.request(v6: false, identifier: 1, sequence: 1, nonce: 1), v6: false, ipHeader: false)
                == nil)
        #expect(EchoPacket.reply(in: Array(reply.prefix(7)), v6: false, ipHeader: false) == nil)
        var v6 = EchoPacket.request(v6: true, identifier: 9, sequence: 4, nonce: 5)
        #expect(v6[0] == 128)
        v6[0] = 129
        #expect(EchoPacket.reply(in: v6, v6: true, ipHeader: false)?.sequence == 4)
    }

    @Test func statisticsAreMinAvgMaxJitterAndLoss() {
        let s = PingStatistics(sent: 5, rtts: [1: 1.0, 2: 3.0, 4: 2.0])
        #expect(s.received == 3 && s.lossPercent == 40)
        #expect(s.minimum == 1 && s.maximum == 3 && s.average == 2)
        // In sequence order 1, 3, 2: |3-1| and |2-3|, averaged.
        #expect(s.jitter == 1.5)
        #expect(PingStatistics(sent: 3, rtts: [:]).lossPercent == 100)
        #expect(PingStatistics(sent: 1, rtts: [1: 0.5]).jitter == nil)
    }

    func refusal(_ json: String) -> String? {
        do {
            _ = try PingProbe(config: ProbeExport.decodeConfig(PingConfig.self, from: json))
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func configurationErrorsNameTheirPath() {
        #expect(refusal(#"{"targets": [{"name": "gw", "host": "127.0.0.1"}]}"#) == nil)
        #expect(refusal(#"{"targets": []}"#) == "targets: expected at least one target")
        #expect(refusal(#"{"targets": [{"name": "a/b", "host": "x"}]}"#)?.hasPrefix("targets[0].name:") == true)
        #expect(
            refusal(#"{"targets": [{"name": "a", "host": "x"}, {"name": "a", "host": "y"}]}"#)
                == #"targets[1].name: duplicate target name "a" (also targets[0])"#)
        #expect(
            refusal(#"{"targets": [{"name": "a", "host": "x", "count": 0}]}"#) == "targets[0].count: expected 1 to 100")
        #expect(
            refusal(#"{"targets": [{"name": "a", "host": "x", "interval": "1ms"}]}"#)
                == "targets[0].interval: must be at least 10ms")
        #expect(
            refusal(#"{"targets": [{"name": "a", "host": "x", "warn_loss_percent": 50, "crit_loss_percent": 20}]}"#)
                == "targets[0].warn_loss_percent: must not exceed crit_loss_percent (20)")
        #expect(
            refusal(#"{"targets": [{"name": "a", "host": "x", "crit_loss_percent": 101}]}"#)
                == "targets[0].crit_loss_percent: expected a percentage from 0 to 100")
        #expect(
            refusal(#"{"targets": [{"name": "a", "host": "x", "socket": "packet"}]}"#)?.hasPrefix("targets[0].socket")
                == true)
        #expect(refusal(#"{"targets": [{"name": "a", "host": "x", "ttl": 3}]}"#)?.contains("ttl") == true)
    }
}
