/// One item of Nagios performance data: `'label'=value[UOM];[warn];[crit];[min];[max]`.
struct PerfDatum: Equatable, Sendable {
    var label: String
    /// nil for `U` (the plug-in could not determine it).
    var value: Double?
    var unit: String
    var warn: String?
    var crit: String?
    var min: String?
    var max: String?
}

/// The performance data of a plug-in's output, item by item, as the Nagios plug-in guidelines
/// write it: items separated by spaces; a label in single quotes may hold spaces and `=`, and
/// `''` inside the quotes is one quote; the fields after the value are optional, and may be empty
/// (`load1=0.5;;;0`). An item that does not parse is a problem named in the check's message,
/// never the end of the rest.
enum PerfDataParser {
    struct Result: Equatable {
        var data: [PerfDatum] = []
        var problems: [String] = []
    }

    static func parse(_ text: String) -> Result {
        var result = Result()
        var rest = Substring(text)
        while true {
            rest = rest.drop(while: \.isWhitespace)
            guard !rest.isEmpty else { break }
            // The label: quoted (with '' for a quote) or up to '='.
            var label = ""
            if rest.first == "'" {
                rest = rest.dropFirst()
                var closed = false
                while let c = rest.first {
                    rest = rest.dropFirst()
                    if c == "'" {
                        if rest.first == "'" {
                            label.append("'")
                            rest = rest.dropFirst()
                        } else {
                            closed = true
                            break
                        }
                    } else {
                        label.append(c)
                    }
                }
                guard closed else {
                    result.problems.append("'\(shown(label))': unterminated quote")
                    break
                }
                guard rest.first == "=" else {
                    let item = rest.prefix(while: { !$0.isWhitespace })
                    result.problems.append("'\(shown(label))': expected = after the label, found \"\(shown(item))\"")
                    rest = rest.drop(while: { !$0.isWhitespace })
                    continue
                }
            } else {
                let item = rest.prefix(while: { !$0.isWhitespace })
                guard let equals = item.firstIndex(of: "=") else {
                    result.problems.append("\"\(shown(item))\": no '=' (expected label=value)")
                    rest = rest.dropFirst(item.count)
                    continue
                }
                label = String(item[..<equals])
                rest = rest[equals...]
            }
            rest = rest.dropFirst()  // '='
            let fields = rest.prefix(while: { !$0.isWhitespace })
            rest = rest.dropFirst(fields.count)
            guard !label.isEmpty else {
                result.problems.append("\"=\(shown(fields))\": empty label")
                continue
            }
            switch datum(label: label, fields: fields) {
            case .success(let datum): result.data.append(datum)
            case .failure(let problem): result.problems.append(problem.text)
            }
        }
        return result
    }

    struct Problem: Error { var text: String }

    private static func datum(label: String, fields: Substring) -> Result_<PerfDatum> {
        let parts = fields.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        guard let first = parts.first, !first.isEmpty else {
            return .failure(Problem(text: "'\(shown(label))': no value"))
        }
        guard parts.count <= 5 else {
            return .failure(
                Problem(text: "'\(shown(label))': more than value;warn;crit;min;max in \"\(shown(fields))\""))
        }
        var datum = PerfDatum(label: label, value: nil, unit: "")
        if first == "U" {
            datum.value = nil
        } else {
            // The longest number at the front; "5E" keeps "5" (an exponent needs digits).
            var numeric = first.prefix { "0123456789.+-eE".contains($0) }
            while !numeric.isEmpty, Double(numeric) == nil { numeric = numeric.dropLast() }
            guard let value = Double(numeric), value.isFinite, !numeric.isEmpty else {
                return .failure(Problem(text: "'\(shown(label))': value \"\(shown(first))\" is not a number"))
            }
            datum.value = value
            datum.unit = String(first.dropFirst(numeric.count))
            guard datum.unit.allSatisfy({ $0.isLetter || $0 == "%" || $0 == "/" }) else {
                return .failure(
                    Problem(text: "'\(shown(label))': value \"\(shown(first))\" is not a number with a unit"))
            }
        }
        func field(_ i: Int) -> String? { i < parts.count && !parts[i].isEmpty ? parts[i] : nil }
        datum.warn = field(1)
        datum.crit = field(2)
        datum.min = field(3)
        datum.max = field(4)
        return .success(datum)
    }

    /// At most 60 characters of what the output said, for a message.
    static func shown(_ text: some StringProtocol) -> String {
        text.count <= 60 ? String(text) : String(text.prefix(57)) + "…"
    }
}

/// Swift's Result, under a name that does not shadow this file's `Result`.
typealias Result_<T> = Swift.Result<T, PerfDataParser.Problem>
