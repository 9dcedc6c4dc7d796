"""The kit's collect, for a student id that is no user of this machine: a later
submission owned by another user than the student's first is refused; the honest
twin (every submission owned by the one who made the first) is collected as the
newest. Only root can make a folder owned by another user.
"""

from __future__ import annotations

import datetime
import os
import secrets
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to chown")
A = "tictactoe"
OTHER_UID = 54321                 # no user of this machine either


def submission(inbound: Path, student: str, when: datetime.datetime, uid: int) -> str:
    stamp = when.strftime("%Y-%m-%d %H:%M:%S.%f %Z")
    folder = inbound / f"{student}+{A}+{stamp}+{secrets.token_urlsafe(6)}"
    folder.mkdir()
    (folder / "timestamp.txt").write_text(stamp)
    (folder / "submission_secret.txt").write_text(secrets.token_hex(8))
    for item in (folder, *folder.iterdir()):
        os.lchown(item, uid, -1)
    time.sleep(0.02)                 # the next folder is made (ctime) later
    return folder.name


def collect(inbound: Path):
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory

    from autograder.nbgrader.exchange import SafeCollect
    collect = SafeCollect(coursedir=CourseDirectory(root=str(inbound)),
                          authenticator=Authenticator())
    records = []
    for path in sorted(inbound.iterdir()):
        record, problem = collect._record(str(path))
        assert not problem, problem
        records.append(record)
    return collect, [r["filename"] for r in collect._same_maker(records)]


def test_a_later_folder_of_another_owner_is_refused(tmp_path):
    now = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=5)
    student = "zz-no-such-user-1"
    first = submission(tmp_path, student, now, 1000)
    forged = submission(tmp_path, student, now + datetime.timedelta(minutes=1), OTHER_UID)
    again = submission(tmp_path, student, now + datetime.timedelta(minutes=2), 1000)
    collector, kept = collect(tmp_path)
    assert sorted(kept) == sorted([first, again])
    assert len(collector.notes) == 1 and collector.notes[0].startswith(f"refused {forged}")
    assert "first submission was made by" in collector.notes[0]


def test_the_honest_twin_keeps_every_submission(tmp_path):
    now = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=5)
    student = "zz-no-such-user-2"
    names = [submission(tmp_path, student, now + datetime.timedelta(minutes=n), 1000)
             for n in range(2)]
    collector, kept = collect(tmp_path)
    assert sorted(kept) == sorted(names) and collector.notes == []
