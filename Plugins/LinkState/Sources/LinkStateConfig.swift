import PathwatchProbeKit

/// The `linkstate` probe's configuration (see the plug-in's README for each key).
struct LinkStateConfig: Decodable {
    /// Interfaces not reported at all (and not considered for the path).
    var ignore: [Glob] = [Glob("lo")]
    /// Interfaces that are critical whenever they are not up with carrier, even when
    /// administratively down; a literal name that matches no interface is reported missing.
    var require: [Glob] = []
    /// Interfaces whose traffic costs money: the path is `expensive` through them.
    var metered: [Glob] = []
    /// Where sysfs is mounted; tests point it at fixture trees.
    var sysfsRoot = "/sys"

    enum CodingKeys: String, CodingKey {
        case ignore, require, metered
        case sysfsRoot = "sysfs_root"
    }

    init() {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        ignore = try container.decodeIfPresent([Glob].self, forKey: .ignore) ?? ignore
        require = try container.decodeIfPresent([Glob].self, forKey: .require) ?? require
        metered = try container.decodeIfPresent([Glob].self, forKey: .metered) ?? metered
        sysfsRoot = try container.decodeIfPresent(String.self, forKey: .sysfsRoot) ?? sysfsRoot
    }

    /// What decoding cannot check: patterns must be non-empty, the sysfs root absolute.
    func validate() throws(ProbeConfigError) {
        for (key, globs) in [("ignore", ignore), ("require", require), ("metered", metered)] {
            for (index, glob) in globs.enumerated() where glob.pattern.isEmpty {
                throw ProbeConfigError(
                    "\(key)[\(index)]", "expected an interface name or glob such as \"eth*\", found an empty string")
            }
        }
        guard sysfsRoot.hasPrefix("/") else {
            throw ProbeConfigError("sysfs_root", "expected an absolute path such as \"/sys\", found \"\(sysfsRoot)\"")
        }
    }
}
