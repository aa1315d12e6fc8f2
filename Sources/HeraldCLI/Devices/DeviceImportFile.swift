import Foundation
import ProviderStorage
import PushProvider

/// A file of device registrations for `herald devices import`: one per line, either a token alone
/// (`3c5a…`) or a JSON object with a registration's fields (`{"token": "3c5a…", "userID": "u1", "tags": ["beta"]}`).
/// Blank lines are skipped; every line ends with a newline (a last line without one may be cut short).
///
/// It is read as a stream, a megabyte at a time, twice: once to check every line (and find tokens written twice),
/// then again to send; only an 8-byte key per device is held in between.
struct DeviceImportFile {
    /// The most devices one import takes.
    static let maximumDevices = 10_000_000
    /// The longest line, in bytes.
    static let maximumLineLength = 65_536
    /// The most problems listed before the rest are only counted.
    static let problemsListed = 20

    /// One registration: the line it is on, and its JSON as the import route takes it.
    struct Entry {
        var line: Int
        var token: String
        var json: [UInt8]
    }

    /// A line that cannot be imported: its number and what is wrong.
    struct Problem: Error, Equatable, CustomStringConvertible {
        var line: Int
        var message: String

        var description: String { "line \(line): \(message)" }
    }

    /// What the check found.
    struct Check {
        /// Registrations from the first line on.
        var devices = 0
        /// The first ``DeviceImportFile/problemsListed`` problems, by line.
        var problems: [Problem] = []
        /// How many problems there are in all.
        var problemCount = 0
    }

    let path: String
    /// The app the registrations are for: each is checked as the provider checks it.
    let bundleID: String
    let environment: String
    /// The first line imported (1 for the whole file).
    var firstLine = 1
    /// The most devices this import takes (``maximumDevices`` unless a test says fewer).
    var deviceLimit = Self.maximumDevices

    /// Reads every line from ``firstLine`` and checks it: the token, the fields, the app's bundle ID and
    /// environment, the limits, and tokens given twice.
    func check() throws -> Check {
        var check = Check()
        var keys: [UInt64] = []
        let entries = try entries(json: false)
        reading: while let result = try entries.next() {
            switch result {
            case .success(let entry):
                check.devices += 1
                guard check.devices <= deviceLimit else {
                    check.note(
                        Problem(
                            line: entry.line,
                            message: "more than \(deviceLimit.formatted()) devices in one import; split the file "
                                + "(split -l \(deviceLimit) FILE part-) and import each part"))
                    break reading
                }
                keys.append(Self.key(entry.token, line: entry.line))
            case .failure(let problem):
                check.note(problem)
            }
        }
        try duplicates(in: &keys, into: &check)
        check.problems.sort { $0.line < $1.line }
        if check.problems.count > Self.problemsListed {
            check.problems.removeLast(check.problems.count - Self.problemsListed)
        }
        return check
    }

    /// The registrations (or the problem with each line) from ``firstLine`` on, in order; `json` false leaves
    /// each ``Entry/json`` empty.
    func entries(json: Bool = true) throws -> Entries {
        Entries(file: self, reader: try LineReader(path: path, maximumLength: Self.maximumLineLength), json: json)
    }

    /// Reads a ``DeviceImportFile`` line by line.
    final class Entries {
        let file: DeviceImportFile
        private let reader: LineReader
        private let json: Bool
        private var finished = false

        init(file: DeviceImportFile, reader: LineReader, json: Bool) {
            self.file = file
            self.reader = reader
            self.json = json
        }

        /// The next registration or problem; `nil` after the last line.
        func next() throws -> Result<Entry, Problem>? {
            while !finished, let line = try reader.next() {
                guard line.number >= file.firstLine else { continue }
                guard line.ended else {
                    finished = true
                    return .failure(
                        Problem(
                            line: line.number,
                            message: "does not end with a newline: the file may be cut short; check its last line, "
                                + "then end it with a newline"))
                }
                guard let bytes = line.bytes else {
                    return .failure(
                        Problem(
                            line: line.number,
                            message: "is longer than \(DeviceImportFile.maximumLineLength.formatted()) bytes; a "
                                + "registration is one token or one JSON object per line"))
                }
                let text = DeviceImportFile.trimmed(bytes)
                guard !text.isEmpty else { continue }
                return file.entry(text, line: line.number, json: json)
            }
            return nil
        }
    }

    /// The registration on one line, or what is wrong with it; `json` false leaves ``Entry/json`` empty (the check
    /// needs only the token).
    func entry(_ text: ArraySlice<UInt8>, line: Int, json: Bool = true) -> Result<Entry, Problem> {
        guard text.first == UInt8(ascii: "{") else {
            // A token alone: the only field, so the token's check is the whole check.
            do {
                let token = try NotificationTarget.checkToken(String(decoding: text, as: UTF8.self), field: "token")
                return .success(
                    Entry(line: line, token: token, json: json ? Self.tokenJSON(text) : []))
            } catch {
                return .failure(Problem(line: line, message: Self.describe(error)))
            }
        }
        let input: DeviceInput
        do {
            input = try JSONCoding.decode(DeviceInput.self, from: Data(text))
            try input.check(bundleID: bundleID, environment: environment)
        } catch let error as ProviderError {
            return .failure(Problem(line: line, message: Self.describe(error)))
        } catch {
            return .failure(Problem(line: line, message: "not a JSON object: \(error)"))
        }
        return .success(Entry(line: line, token: input.token.lowercased(), json: json ? Array(text) : []))
    }

    /// `{"token":"…"}` for a token alone.
    private static func tokenJSON(_ token: ArraySlice<UInt8>) -> [UInt8] {
        var json: [UInt8] = []
        json.reserveCapacity(token.count + 12)
        json.append(contentsOf: #"{"token":""#.utf8)
        json.append(contentsOf: token)
        json.append(contentsOf: #""}"#.utf8)
        return json
    }

    /// The lines whose token an earlier line gave already. `keys` (a hash of each token with its line) is sorted;
    /// two equal hashes are compared by their tokens, read again (at most ``suspectsCompared`` lines: a file with
    /// more is reported with the duplicates found among them).
    private func duplicates(in keys: inout [UInt64], into check: inout Check) throws {
        keys.sort()
        var suspects = Set<Int>()
        var index = 1
        while index < keys.count, suspects.count < Self.suspectsCompared {
            if keys[index] >> Self.lineBits == keys[index - 1] >> Self.lineBits {
                suspects.insert(Int(keys[index] & Self.lineMask))
                suspects.insert(Int(keys[index - 1] & Self.lineMask))
            }
            index += 1
        }
        keys = []
        guard !suspects.isEmpty else { return }
        var firstLine: [String: Int] = [:]
        let entries = try entries(json: false)
        while let result = try entries.next() {
            guard case .success(let entry) = result, suspects.contains(entry.line) else { continue }
            if let first = firstLine[entry.token] {
                check.note(
                    Problem(
                        line: entry.line,
                        message: "repeats the token of line \(first) (\(entry.token.prefix(16))…); give each device "
                            + "once"))
            } else {
                firstLine[entry.token] = entry.line
            }
        }
    }

    /// The most lines whose tokens are compared again after their hashes matched.
    private static let suspectsCompared = 200_000

    /// Line numbers take the low 24 bits of a key (up to 16,777,215), a hash of the token the rest.
    private static let lineBits: UInt64 = 24
    private static let lineMask: UInt64 = (1 << lineBits) - 1

    /// A token's hash (FNV-1a, 40 bits) with its line.
    private static func key(_ token: String, line: Int) -> UInt64 {
        let fnv: (UnsafeBufferPointer<UInt8>) -> UInt64 = { bytes in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            return hash
        }
        let hash = token.utf8.withContiguousStorageIfAvailable(fnv) ?? Array(token.utf8).withUnsafeBufferPointer(fnv)
        return (hash << lineBits) | (UInt64(line) & lineMask)
    }

    fileprivate static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
        guard let start = bytes.firstIndex(where: { !isSpace($0) }), let end = bytes.lastIndex(where: { !isSpace($0) })
        else { return [] }
        return bytes[start...end]
    }

    private static func describe(_ error: ProviderError) -> String {
        (error.field.map { "\($0): " } ?? "") + error.message
    }
}

extension DeviceImportFile.Check {
    /// Counts a problem, and keeps it while fewer than twice the number listed are kept (the first of them by line
    /// are listed).
    mutating func note(_ problem: DeviceImportFile.Problem) {
        problemCount += 1
        if problems.count < 2 * DeviceImportFile.problemsListed { problems.append(problem) }
    }
}
