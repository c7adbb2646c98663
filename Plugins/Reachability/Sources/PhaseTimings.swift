import CCurlShims

/// Where a transfer's time went, from libcurl's *_TIME_T infos (microseconds since the transfer
/// started, each counting up to the end of its phase), made into one duration per phase:
///
///     dns_ms      = namelookup                       resolving the host name
///     connect_ms  = connect − namelookup             the TCP handshake
///     tls_ms      = appconnect − connect             the TLS handshake (HTTPS only)
///     ttfb_ms     = starttransfer                    start → first response byte, as
///                                                    `curl -w %{time_starttransfer}` and contract §3 count it
///     total_ms    = total                            everything, including redirects
///
/// A phase that was never reached (libcurl reports 0) has no value, so a refused connection
/// reports dns_ms and total_ms but no connect_ms. When redirects are followed libcurl adds up
/// each phase over every request of the chain; the differences stay per-phase sums.
struct PhaseTimings: Equatable {
    var nameLookup: Int64 = 0
    var connect: Int64 = 0
    var appConnect: Int64 = 0
    var preTransfer: Int64 = 0
    var startTransfer: Int64 = 0
    var total: Int64 = 0

    var dnsMilliseconds: Double? { nameLookup > 0 ? Self.ms(nameLookup) : nil }
    var connectMilliseconds: Double? { connect > 0 ? Self.ms(connect - nameLookup) : nil }
    var tlsMilliseconds: Double? { appConnect > 0 ? Self.ms(appConnect - connect) : nil }
    var ttfbMilliseconds: Double? { startTransfer > 0 ? Self.ms(startTransfer) : nil }
    var totalMilliseconds: Double { Self.ms(total) }

    /// The phase a transfer was in when it stopped: the first one not reached.
    func unfinishedPhase(usesTLS: Bool, connectOnly: Bool) -> String {
        if nameLookup == 0 { return "DNS" }
        if connect == 0 { return "connect" }
        if usesTLS, appConnect == 0 { return "TLS handshake" }
        if connectOnly { return "connect" }
        if startTransfer == 0 { return "waiting for response" }
        return "reading response"
    }

    /// Microseconds to milliseconds, kept to the microsecond libcurl measured; never negative.
    static func ms(_ microseconds: Int64) -> Double { Double(max(0, microseconds)) / 1000 }
}

extension PhaseTimings {
    /// Reads the six times of a finished transfer. (In an extension, so the memberwise
    /// initializer used for fixed timings stays.)
    init(reading info: EasyInfo) {
        nameLookup = info.offset(CURLINFO_NAMELOOKUP_TIME_T)
        connect = info.offset(CURLINFO_CONNECT_TIME_T)
        appConnect = info.offset(CURLINFO_APPCONNECT_TIME_T)
        preTransfer = info.offset(CURLINFO_PRETRANSFER_TIME_T)
        startTransfer = info.offset(CURLINFO_STARTTRANSFER_TIME_T)
        total = info.offset(CURLINFO_TOTAL_TIME_T)
    }
}
