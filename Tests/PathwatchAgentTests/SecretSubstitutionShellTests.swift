import Glibc
import PathwatchJSON
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

/// Only `${env:…}` and `${file:…}` are Pathwatch's: a shell's parameter expansions in an exec
/// command (`${#X}`, `${X:-default}`) pass through as written, while a malformed or unknown
/// Pathwatch reference is still refused with its path.
@Suite struct SecretSubstitutionShellTests {
    func substitute(_ text: String) throws(JSONPathError) -> String {
        try SecretSubstitution(redactor: SecretRedactor(), baseDirectory: "/nonexistent")
            .substitute(text, at: JSONPath(parsing: "probes[0].config.commands[0].command[2]"))
    }

    @Test(arguments: [
        #"n=${#1}; echo ${#X} chars"#, #"echo ${HOME:-/tmp} ${X:+set} ${X:=v} ${X:?unset} ${X: -2}"#,
        #"echo ${x:1:2} ${X#*/} ${X%%.*} ${X/a/b} ${!ref} ${@} ${10} ${X^^}"#, "echo ${", "a ${ b } c",
        #"echo ${X:-${Y}}"#,
    ])
    func shellExpansionsPassThroughUntouched(text: String) throws {
        #expect(try substitute(text) == text)
    }

    /// Text with no `${` is returned as it is without being looked at further; `$` and `{` apart,
    /// or in the other order, are no opening.
    @Test func anOpeningIsADollarRightBeforeABrace() {
        for text in ["${", "a${b", "$${", "x ${env:A}", "é${"] {
            #expect(SecretSubstitution.holdsOpening(text), "\(text)")
        }
        for text in ["", "$", "{", "$ {", "{$", "a$b{c", "$}{", "é$"] {
            #expect(!SecretSubstitution.holdsOpening(text), "\(text)")
        }
    }

    @Test func aReferenceInsideAShellExpansionIsStillSubstituted() throws {
        setenv("PATHWATCH_TEST_SHELL_SECRET", "s3cret", 1)
        defer { unsetenv("PATHWATCH_TEST_SHELL_SECRET") }
        #expect(
            try substitute(#"echo ${#X} ${X:-${env:PATHWATCH_TEST_SHELL_SECRET}}"#) == #"echo ${#X} ${X:-s3cret}"#)
    }

    @Test(arguments: [
        ("${vault:x}", "unknown substitution"), ("${env:}", "${env:} needs a variable name"),
        ("x ${env:PATHWATCH_TEST_X", "unterminated \"${\""), ("${file:", "unterminated \"${\""),
        ("${ENV:TOKEN}", "unknown substitution"), ("${File:/x}", "unknown substitution"),
    ])
    func malformedPathwatchReferencesAreStillRefused(text: String, says: String) {
        #expect {
            _ = try substitute(text)
        } throws: { error in
            let e = error as? JSONPathError
            return e?.path.description == "probes[0].config.commands[0].command[2]"
                && e?.message.contains(says) == true
        }
    }
}
