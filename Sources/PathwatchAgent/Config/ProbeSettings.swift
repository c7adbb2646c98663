import PathwatchJSON

/// A probe's `config` object: the parsed tree while a configuration is loaded and checked, and
/// only the JSON text its plug-in was given once the probe runs.
///
/// Why: a running agent reads a probe's settings for one thing, to tell at a reload whether they
/// changed, and the plug-in has the text. The tree of 10,000 targets (a member list, a key and a
/// string for every field of every target) held 2.0 MB of the agent's heap for the life of the
/// agent (heaptrack, bench/endpoints); their text is 0.55 MB, and its storage is the very String
/// a plug-in child is sent (kept for the child's restart), so keeping it costs nothing more.
///
/// Two settings are equal when their texts are equal byte for byte: what the plug-in would be
/// given. The tree's own equality compared strings as Unicode does, so a setting rewritten from
/// composed to decomposed accents was taken as unchanged though its plug-in would read other
/// bytes. Members in another order differ either way, as they did.
package struct ProbeSettings: Sendable, Equatable {
    private enum Form: Sendable {
        case tree(JSONValue)
        case text(String)
    }

    private var form: Form

    /// Settings as parsed from a configuration.
    package init(_ tree: JSONValue) { form = .tree(tree) }

    /// The object as parsed: what the configuration's checks read (targets, timeouts). Settings
    /// kept as text are parsed again, which no running agent needs: its checks read a
    /// configuration being loaded.
    package var tree: JSONValue {
        switch form {
        case .tree(let tree): tree
        case .text(let text): (try? JSONParser.parse(text)) ?? .object(JSONObject())
        }
    }

    /// The compact JSON text the plug-in is given.
    package var text: String {
        switch form {
        case .tree(let tree): JSONSerializer.serialize(tree)
        case .text(let text): text
        }
    }

    /// The same settings held as their text alone.
    package var keptAsText: ProbeSettings {
        if case .text = form { return self }
        var kept = self
        kept.form = .text(text)
        return kept
    }

    /// Whether the settings are held as text alone (tests ask).
    var isKeptAsText: Bool {
        if case .text = form { return true }
        return false
    }

    package static func == (lhs: ProbeSettings, rhs: ProbeSettings) -> Bool {
        lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }
}
