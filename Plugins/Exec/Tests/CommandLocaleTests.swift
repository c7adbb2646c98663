import PathwatchProbeKit
import PathwatchProbeTesting
import Testing

@testable import ExecProbe

/// The locale a command runs in: UTF-8 characters by default, and a locale the command's `env`
/// names as a whole (`LANG`, `LC_ALL`) is that locale in every category, its character set too.
/// What is asserted is what `locale charmap` (glibc's own reading of the environment) answers.
@Suite(.onItsOwnThread) struct CommandLocaleTests {
    /// The character set a command given `env` (a JSON object) sees.
    func charmap(env: String?) throws -> String {
        let envPart = env.map { #", "env": \#($0)"# } ?? ""
        let probe = try ProbeTester(
            ExecProbe.self,
            config: #"{"commands": [{"name": "l", "command": ["/usr/bin/locale", "charmap"]\#(envPart)}]}"#)
        let check = try #require(try probe.sample(within: .seconds(5)).first)
        #expect(check.state == .ok, "\(check.message)")
        return check.message
    }

    @Test func aCommandSeesUTF8ByDefault() throws {
        #expect(try charmap(env: nil) == "UTF-8")
    }

    @Test func aLocaleNamedAsAWholeGovernsTheCharacterSetToo() throws {
        #expect(try charmap(env: #"{"LANG": "C"}"#) == "ANSI_X3.4-1968")
        #expect(try charmap(env: #"{"LC_ALL": "C"}"#) == "ANSI_X3.4-1968")
        #expect(try charmap(env: #"{"LC_MESSAGES": "C"}"#) == "UTF-8")
    }

    @Test func aCharacterSetOfTheCommandsOwnStandsBesideItsLocale() throws {
        #expect(try charmap(env: #"{"LANG": "C", "LC_CTYPE": "C.UTF-8"}"#) == "UTF-8")
        #expect(try charmap(env: #"{"LC_CTYPE": "C"}"#) == "ANSI_X3.4-1968")
    }
}
