import BandwidthProbe
import Testing

/// The rate arithmetic on its own: readings and instants in, rates or reasons out.
@Suite struct RateCalculatorTests {
    func at(_ seconds: Double) -> MonotonicInstant { MonotonicInstant(nanoseconds: Int64(seconds * 1e9)) }

    func reading(_ name: String = "eth0", index: Int32? = 2, rx: UInt64, tx: UInt64, packets: UInt64 = 0)
        -> InterfaceReading
    {
        InterfaceReading(
            name: name, index: index,
            counters: InterfaceCounters(rxBytes: rx, rxPackets: packets, txBytes: tx, txPackets: packets))
    }

    func rates(_ outcome: RateOutcome) throws -> InterfaceRates {
        guard case .rates(let rates) = outcome else {
            throw RateTestFailure("expected rates, got \(outcome)")
        }
        return rates
    }

    @Test func firstSampleHasNoRate() {
        var calculator = RateCalculator()
        #expect(calculator.observe(reading(rx: 500, tx: 700), at: at(10), width: .bits64) == .noRate(.firstSample))
        #expect(NoRateReason.firstSample.description == "no rate yet: first sample")
    }

    @Test func ratesUseTheRealElapsedTimeNotTheNominalInterval() throws {
        var calculator = RateCalculator()
        _ = calculator.observe(reading(rx: 1_000, tx: 5_000, packets: 10), at: at(100), width: .bits64)
        // A "1 s" interval that really took 1.25 s: 1,250,000 bytes in 1.25 s is 1 MB/s, 8 Mb/s.
        let r = try rates(
            calculator.observe(reading(rx: 1_251_000, tx: 5_000, packets: 35), at: at(101.25), width: .bits64))
        #expect(r.windowSeconds == 1.25)
        #expect(r.rxBitsPerSecond == 8_000_000)
        #expect(r.txBitsPerSecond == 0)
        #expect(r.perSecond(.rxPackets) == 20)
        #expect(r.perSecond(.txPackets) == 20)
    }

    @Test func eachReadingBecomesTheNextBaseline() throws {
        var calculator = RateCalculator()
        _ = calculator.observe(reading(rx: 0, tx: 0), at: at(0), width: .bits64)
        _ = calculator.observe(reading(rx: 100, tx: 0), at: at(1), width: .bits64)
        let r = try rates(calculator.observe(reading(rx: 400, tx: 0), at: at(2), width: .bits64))
        #expect(r.perSecond(.rxBytes) == 300)
    }

    @Test func aChangedIfindexIsAResetEvenWhenCountersGrew() throws {
        var calculator = RateCalculator()
        _ = calculator.observe(reading(index: 4, rx: 100, tx: 100), at: at(0), width: .bits64)
        let outcome = calculator.observe(reading(index: 9, rx: 5_000_000, tx: 200), at: at(1), width: .bits64)
        #expect(outcome == .noRate(.interfaceRecreated(previousIndex: 4, currentIndex: 9)))
        #expect("\(NoRateReason.interfaceRecreated(previousIndex: 4, currentIndex: 9))".contains("re-created"))
        // The new interface's reading is the baseline from now on.
        let r = try rates(calculator.observe(reading(index: 9, rx: 5_000_100, tx: 300), at: at(2), width: .bits64))
        #expect(r.perSecond(.rxBytes) == 100)
        #expect(r.perSecond(.txBytes) == 100)
    }

    @Test func aCounterGoingBackwardsIsAResetNotANegativeRate() throws {
        var calculator = RateCalculator()
        _ = calculator.observe(reading(rx: 9_000_000_000, tx: 9_000_000_000), at: at(0), width: .bits64)
        let outcome = calculator.observe(reading(rx: 9_000_000_500, tx: 120), at: at(1), width: .bits64)
        #expect(outcome == .noRate(.counterWentBackwards(.txBytes, previous: 9_000_000_000, current: 120)))
        #expect(
            NoRateReason.counterWentBackwards(.txBytes, previous: 9, current: 1).description.contains("counters reset"))
        let r = try rates(calculator.observe(reading(rx: 9_000_001_500, tx: 1_120), at: at(2), width: .bits64))
        #expect(r.perSecond(.rxBytes) == 1_000)
        #expect(r.perSecond(.txBytes) == 1_000)
    }

    @Test func aThirtyTwoBitCounterThatWrappedCountsTheWrap() throws {
        var calculator = RateCalculator()
        let nearTop = UInt64(UInt32.max) - 999
        _ = calculator.observe(reading(rx: nearTop, tx: 10), at: at(0), width: .bits32Wrapping)
        // 1,000 bytes to reach 2^32, then 24 more.
        let r = try rates(calculator.observe(reading(rx: 24, tx: 10), at: at(2), width: .bits32Wrapping))
        #expect(r.deltas.rxBytes == 1_024)
        #expect(r.perSecond(.rxBytes) == 512)
    }

    @Test func aWrapThatWouldMeanMoreThanHalfTheRangeIsAReset() {
        var calculator = RateCalculator()
        _ = calculator.observe(reading(rx: 1_000_000, tx: 10), at: at(0), width: .bits32Wrapping)
        // Going from 10^6 to 10 "by wrapping" would be ~4.29 GB in a second: a reset instead.
        #expect(
            calculator.observe(reading(rx: 10, tx: 10), at: at(1), width: .bits32Wrapping)
                == .noRate(.counterWentBackwards(.rxBytes, previous: 1_000_000, current: 10)))
    }

    @Test func sixtyFourBitCountersNeverWrap() {
        #expect(RateCalculator.increase(from: UInt64(UInt32.max) - 10, to: 5, width: .bits64) == nil)
        #expect(RateCalculator.increase(from: UInt64(UInt32.max) - 10, to: 5, width: .bits32Wrapping) == 16)
        // A value above 32 bits proves the counter is wider: going backwards from it is a reset.
        #expect(RateCalculator.increase(from: UInt64(UInt32.max) + 10, to: 5, width: .bits32Wrapping) == nil)
        #expect(RateCalculator.increase(from: UInt64.max - 1, to: UInt64.max, width: .bits64) == 1)
    }

    @Test(arguments: [0.0, -0.5])
    func aClockThatDidNotAdvanceYieldsNoRate(step: Double) throws {
        var calculator = RateCalculator()
        _ = calculator.observe(reading(rx: 0, tx: 0), at: at(50), width: .bits64)
        let outcome = calculator.observe(reading(rx: 1_000, tx: 0), at: at(50 + step), width: .bits64)
        guard case .noRate(.clockDidNotAdvance) = outcome else {
            Issue.record("expected no rate, got \(outcome)")
            return
        }
        // The reading became the baseline: the next window starts from it.
        let r = try rates(calculator.observe(reading(rx: 3_000, tx: 0), at: at(52 + step), width: .bits64))
        #expect(r.perSecond(.rxBytes) == 1_000)
    }

    @Test func vanishedInterfacesAreForgottenAndStartOverWhenTheyReturn() {
        var calculator = RateCalculator()
        _ = calculator.observe(reading("eth0", rx: 0, tx: 0), at: at(0), width: .bits64)
        _ = calculator.observe(reading("wlan0", rx: 0, tx: 0), at: at(0), width: .bits64)
        calculator.retain(only: ["eth0"])
        #expect(calculator.trackedInterfaces == ["eth0"])
        #expect(
            calculator.observe(reading("wlan0", rx: 10, tx: 10), at: at(5), width: .bits64) == .noRate(.firstSample))
    }

    @Test func unknownIfindexesRelyOnCountersAlone() throws {
        var calculator = RateCalculator()
        _ = calculator.observe(reading(index: nil, rx: 10, tx: 10), at: at(0), width: .bits64)
        let r = try rates(calculator.observe(reading(index: 7, rx: 20, tx: 30), at: at(1), width: .bits64))
        #expect(r.perSecond(.txBytes) == 20)
    }
}

struct RateTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
