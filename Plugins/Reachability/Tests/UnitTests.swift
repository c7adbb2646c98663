import PathwatchProbeKit
import Testing

@testable import ReachabilityProbe

@Suite struct StatusPatternTests {
    @Test func parsesCodesClassesAndRanges() throws {
        #expect(StatusPattern(parsing: "204") == .code(204))
        #expect(StatusPattern(parsing: "2XX")?.description == "2xx")
        let range = try #require(StatusPattern(parsing: "200-204"))
        #expect(range.matches(204) && !range.matches(205))
        for bad in ["2x", "6xx", "0xx", "99", "2000", "204-200", "200-", "abc", ""] {
            #expect(StatusPattern(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func successfulMeansAny2xx() {
        #expect(StatusExpectation.successful.matches(200))
        #expect(StatusExpectation.successful.matches(299))
        #expect(!StatusExpectation.successful.matches(301))
    }
}

@Suite struct CertificateDateTests {
    @Test func readsOpenSSLDates() {
        #expect(CertificateDate.parse("Jan  1 00:00:00 1970 GMT") == 0)
        #expect(CertificateDate.parse("Nov 21 20:50:00 2026 GMT") == 1_795_294_200)
        #expect(CertificateDate.parse("Feb 29 12:00:00.5 2028 GMT") == 1_835_438_400)
    }

    @Test func refusesAnythingElse() {
        for bad in [
            "", "Foo  1 00:00:00 2026 GMT", "Jan 32 00:00:00 2026 GMT", "Jan  1 25:00:00 2026 GMT",
            "Jan  1 00:00 2026 GMT", "Jan  1 00:00:00 2026 UTC",
        ] {
            #expect(CertificateDate.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func takesTheLeafsExpiry() {
        let chain = [
            ["Subject:CN=leaf", "Expire date:Jan  2 00:00:00 1970 GMT"], ["Expire date:Jan  3 00:00:00 1970 GMT"],
        ]
        #expect(CertificateDate.leafNotAfter(chain) == 86_400)
        #expect(CertificateDate.leafNotAfter([]) == nil)
    }
}

@Suite struct BodySearchTests {
    func feed(_ search: BodySearch, _ chunks: [String]) {
        for chunk in chunks {
            Array(chunk.utf8).withUnsafeBytes { search.consume($0) }
        }
    }

    @Test func findsTextAcrossChunkBoundaries() {
        let search = BodySearch(needle: "healthy")
        feed(search, ["status: hea", "l", "thy!"])
        #expect(search.found)
        search.reset(needle: "healthy")
        #expect(!search.found)
        feed(search, ["status: hea", "lth"])
        #expect(!search.found)
    }

    @Test func noNeedleAlwaysMatches() {
        #expect(BodySearch(needle: nil).found)
    }
}

@Suite struct PhaseTimingsTests {
    @Test func phasesAreDifferencesOfCurlsCumulativeTimes() {
        let t = PhaseTimings(
            nameLookup: 400, connect: 1_500, appConnect: 13_500, preTransfer: 13_600, startTransfer: 40_800,
            total: 41_200)
        #expect(t.dnsMilliseconds == 0.4)
        #expect(t.connectMilliseconds == 1.1)
        #expect(t.tlsMilliseconds == 12)
        #expect(t.ttfbMilliseconds == 40.8)
        #expect(t.totalMilliseconds == 41.2)
    }

    @Test func unreachedPhasesHaveNoValueAndNameTheTimeout() {
        let refused = PhaseTimings(nameLookup: 30, total: 200)
        #expect(refused.connectMilliseconds == nil && refused.tlsMilliseconds == nil && refused.ttfbMilliseconds == nil)
        #expect(refused.unfinishedPhase(usesTLS: false, connectOnly: false) == "connect")
        #expect(PhaseTimings().unfinishedPhase(usesTLS: false, connectOnly: false) == "DNS")
        #expect(
            PhaseTimings(nameLookup: 1, connect: 2).unfinishedPhase(usesTLS: true, connectOnly: false)
                == "TLS handshake")
        #expect(
            PhaseTimings(nameLookup: 1, connect: 2, preTransfer: 3).unfinishedPhase(usesTLS: false, connectOnly: false)
                == "waiting for response")
    }
}

@Suite struct MessageFormatTests {
    @Test func formatsDurationsForPeople() {
        #expect(MessageFormat.milliseconds(0.84) == "0.8 ms")
        #expect(MessageFormat.milliseconds(41.2) == "41 ms")
        #expect(MessageFormat.milliseconds(12_345) == "12.3 s")
        #expect(MessageFormat.duration(.seconds(5)) == "5 s")
        #expect(MessageFormat.duration(.milliseconds(1500)) == "1.5 s")
        #expect(MessageFormat.duration(.milliseconds(800)) == "800 ms")
        #expect(MessageFormat.days(0.5) == "less than a day")
        #expect(MessageFormat.days(1.9) == "1 day")
        #expect(MessageFormat.days(3.1) == "3 days")
    }
}
