import PathwatchJSON
import PathwatchProbeKit

/// What the targets of one probe's list hold in common, made once and shared while the list is
/// validated: the settings of targets whose options are the same plain values (those that set
/// nothing but `name` and `url`, or the same `timeout` on each, say), and the URL texts many
/// targets repeat, such as the `endpoint` label (`https://api.example.com`) of a thousand paths
/// on one server.
///
/// Why: the plug-in child holds every target of every probe for as long as the probe lives. With
/// each option inline and each target's own copy of these strings, a target held some 410 bytes
/// of the child's heap between rounds (about 4 MB at 10,000 endpoints); sharing them, about 145
/// (heaptrack, `bench/endpoints`).
///
/// Settings are shared only between targets of the same URL kind, since what is valid depends on
/// it (a tcp:// target refuses `method`), and only for options compared whole here; a target with
/// a body, headers, conditions, TLS files or latency limits has settings of its own.
struct TargetSharing {
    /// The settings made so far for targets with plain options, by URL kind and options.
    private var settings: [PlainOptions: TargetSettings] = [:]
    /// Host and endpoint texts seen so far, each kept once.
    private var texts: Set<String> = []

    /// `url` with its host and endpoint texts replaced by equal ones seen before, if any.
    mutating func url(_ url: TargetURL) -> TargetURL {
        TargetURL(kind: url.kind, requestURL: url.requestURL, host: shared(url.host), endpoint: shared(url.endpoint))
    }

    /// The settings `make` makes for `config`, or those made before for a target of the same URL
    /// kind with the same plain options.
    mutating func settings(
        for config: TargetConfig, kind: TargetURL.Kind, make: () throws(ProbeConfigError) -> TargetSettings
    ) throws(ProbeConfigError) -> TargetSettings {
        guard let key = PlainOptions(config, kind: kind) else { return try make() }
        if let made = settings[key] { return made }
        let made = try make()
        settings[key] = made
        return made
    }

    /// An equal text seen before (which shares its storage), or `text`, kept from now on.
    private mutating func shared(_ text: String) -> String {
        if let seen = texts.firstIndex(of: text) { return texts[seen] }
        texts.insert(text)
        return text
    }
}

extension TargetURL {
    init(kind: Kind, requestURL: String, host: String, endpoint: String) {
        self.kind = kind
        self.requestURL = requestURL
        self.host = host
        self.endpoint = endpoint
    }
}

/// A target's options when each is a plain value that compares whole, with its URL's kind: the
/// key its settings are shared by. Nil when the target sets any other option.
struct PlainOptions: Hashable {
    var kind: TargetURL.Kind
    var method: String?
    var expectStatus: StatusExpectation?
    var timeout: ConfigDuration?
    var followRedirects: Bool?
    var certExpiryWarn: ConfigDuration?
    var ipVersion: IPVersion?
    var freshConnection: Bool?

    init?(_ config: TargetConfig, kind: TargetURL.Kind) {
        // Every other field of TargetConfig (a test counts them): set, the target keeps its own.
        guard
            config.body == nil && config.contentType == nil && config.headers == nil
                && config.expectBodyContains == nil && config.expectBody == nil && config.expectJSON == nil
                && config.expectHeader == nil && config.maxBody == nil && config.maxLatency == nil
                && config.tls == nil
        else { return nil }
        self.kind = kind
        method = config.method
        expectStatus = config.expectStatus
        timeout = config.timeout
        followRedirects = config.followRedirects
        certExpiryWarn = config.certExpiryWarn
        ipVersion = config.ipVersion
        freshConnection = config.freshConnection
    }
}
