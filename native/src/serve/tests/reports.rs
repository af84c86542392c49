//! `--reports DIR`: a folder listed when asked, so reports written while serving appear.

use memwall_report::index::ReportsIndex;

use super::*;

fn index(addr: SocketAddr) -> ReportsIndex {
    ReportsIndex::from_json(&get(addr, "/reports/index.json").text()).unwrap()
}

#[test]
fn a_report_written_into_the_folder_appears_on_reload() {
    let root = dist();
    let folder = tempfile::tempdir().unwrap();
    let single = tempfile::tempdir().unwrap();
    report_file(folder.path(), "b host.json");
    std::fs::write(folder.path().join(".a.json.1234.part"), "{").unwrap();
    std::fs::write(folder.path().join("notes.txt"), "not a report").unwrap();
    std::fs::create_dir(folder.path().join("sub.json")).unwrap();
    let args = args(vec![report_file(single.path(), "given.json")], vec![folder.path().to_path_buf()], root.path());
    let addr = start_with(&args, Limits::default());

    let names = |index: &ReportsIndex| index.reports.iter().map(|r| r.name.clone()).collect::<Vec<_>>();
    let before = index(addr);
    assert_eq!(names(&before), ["given.json", "b host.json"]);
    assert_eq!(before.reports[1].url, "reports/dir/0/b%20host.json");

    report_file(folder.path(), "a.json");
    let after = index(addr);
    assert_eq!(names(&after), ["given.json", "a.json", "b host.json"]);
    for entry in &after.reports {
        let reply = get(addr, &format!("/{}", entry.url));
        assert_eq!(reply.status, 200, "{}", entry.url);
        assert_eq!(reply.header("content-type"), Some("application/json"));
        assert_eq!(Report::from_json(&reply.text()).unwrap().host.name.as_deref(), Some("test-host"));
        assert!(entry.modified_unix_s.is_some() && entry.bytes == Some(reply.body.len() as u64), "{entry:?}");
    }
}

#[test]
fn only_reports_directly_in_the_folder_are_served() {
    let root = dist();
    let folder = tempfile::tempdir().unwrap();
    report_file(folder.path(), "r.json");
    std::fs::write(folder.path().join("notes.txt"), "not a report").unwrap();
    std::fs::write(folder.path().join(".hidden.json"), "{}").unwrap();
    let outside = tempfile::tempdir().unwrap();
    let secret = report_file(outside.path(), "secret.json");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&secret, folder.path().join("link.json")).unwrap();
    let addr = start_with(&args(vec![], vec![folder.path().to_path_buf()], root.path()), Limits::default());

    assert_eq!(get(addr, "/reports/dir/0/r.json").status, 200);
    for path in
        ["/reports/dir/0/notes.txt", "/reports/dir/0/.hidden.json", "/reports/dir/0/gone.json", "/reports/dir/1/r.json"]
    {
        assert_eq!(get(addr, path).status, 404, "{path}");
    }
    for path in ["/reports/dir/0/..%2fr.json", "/reports/dir/0/%2e%2e/secret.json", "/reports/dir/0/r.json%00"] {
        let reply = get(addr, path);
        assert_eq!(reply.status, 400, "{path}");
        assert!(!reply.text().contains(&*outside.path().to_string_lossy()), "{path}");
    }
    #[cfg(unix)]
    assert_eq!(get(addr, "/reports/dir/0/link.json").status, 400, "a link out of the folder");
}

#[test]
fn the_fleet_index_carries_each_reports_row_and_reads_a_rewritten_one_again() {
    let root = dist();
    let folder = tempfile::tempdir().unwrap();
    report_file(folder.path(), "a.json");
    std::fs::write(folder.path().join("broken.json"), "{ not json").unwrap();
    let outside = tempfile::tempdir().unwrap();
    let secret = report_file(outside.path(), "secret.json");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&secret, folder.path().join("link.json")).unwrap();
    let addr = start_with(&args(vec![], vec![folder.path().to_path_buf()], root.path()), Limits::default());
    let fleet = || {
        let reply = get(addr, "/reports/fleet.json");
        assert_eq!(reply.header("content-type"), Some("application/json"));
        ReportsIndex::from_json(&reply.text()).unwrap()
    };

    let first = fleet();
    let plain = index(addr);
    assert_eq!(
        first.reports.iter().map(|r| (&r.name, &r.url)).collect::<Vec<_>>(),
        plain.reports.iter().map(|r| (&r.name, &r.url)).collect::<Vec<_>>(),
        "the same reports as the plain index, at the same URLs"
    );
    assert!(plain.reports.iter().all(|r| r.row.is_none() && r.unreadable.is_none()), "the plain index stays light");
    let by_name = |index: &ReportsIndex, name: &str| index.reports.iter().find(|r| r.name == name).unwrap().clone();
    let a = by_name(&first, "a.json");
    assert_eq!(a.row.as_ref().map(|r| (r.host.as_str(), r.report.as_str())), Some(("test-host", "a.json")));
    let broken = by_name(&first, "broken.json");
    assert!(broken.row.is_none() && broken.unreadable.as_deref().is_some_and(|r| r.contains("not")), "{broken:?}");
    #[cfg(unix)]
    {
        // Its URL is refused (`only_reports_directly_in_the_folder_are_served`); its row must not
        // carry what the file outside says either.
        let link = by_name(&first, "link.json");
        assert!(link.row.is_none() && link.unreadable.is_some(), "{link:?}");
    }

    // A report rewritten in place (another `memwall run --out`) is read again.
    let mut report = Report::from_json(&std::fs::read_to_string(folder.path().join("a.json")).unwrap()).unwrap();
    report.host.name = Some("renamed-host-with-a-longer-name".into());
    std::fs::write(folder.path().join("a.json"), report.to_json_pretty()).unwrap();
    assert_eq!(by_name(&fleet(), "a.json").row.unwrap().host, "renamed-host-with-a-longer-name");
}
