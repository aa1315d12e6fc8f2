import APNSCore

/// A lint report as text for a person or as one JSON object for a machine.
struct PayloadLintRendering {
    let name: String
    let report: APNSLinter.Report

    /// One line per problem, compiler style, then a summary line.
    func text() -> String {
        var lines = report.diagnostics.map { "\(name): \($0)" }
        let inferred = report.pushTypeInferred ? " (inferred)" : ""
        let facts =
            "\(report.size) bytes of \(report.pushType.maximumPayloadSize), push type \(report.pushType)\(inferred)"
        let errors = report.errors.count
        let warnings = report.warnings.count
        if errors == 0, warnings == 0 {
            lines.append("\(name): ok (\(facts))")
        } else {
            lines.append("\(name): \(count(errors, "error")), \(count(warnings, "warning")) (\(facts))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `{"file", "accepted", "pushType", "pushTypeInferred", "size", "maximumSize", "errors", "warnings"}`.
    func json() -> String {
        let object: JSONValue = [
            "file": .string(name),
            "accepted": .bool(report.isAccepted),
            "pushType": .string(report.pushType.rawValue),
            "pushTypeInferred": .bool(report.pushTypeInferred),
            "size": .number(JSONNumber(report.size)),
            "maximumSize": .number(JSONNumber(report.pushType.maximumPayloadSize)),
            "errors": .array(report.errors.map(entry)),
            "warnings": .array(report.warnings.map(entry)),
        ]
        return object.jsonString + "\n"
    }

    private func entry(_ diagnostic: APNSDiagnostic) -> JSONValue {
        var object = JSONObject()
        if let reason = diagnostic.reason {
            object["reason"] = .string(reason.rawValue)
            object["status"] = .number(JSONNumber(diagnostic.status ?? 400))
        }
        object["rule"] = .string(diagnostic.rule)
        object["location"] = diagnostic.location.map(JSONValue.string) ?? .null
        object["message"] = .string(diagnostic.message)
        return .object(object)
    }

    private func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}
