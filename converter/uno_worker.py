#!/usr/bin/python3
"""Drives ONE LibreOffice process over UNO for the converter service.

Usage: /usr/bin/python3 uno_worker.py <uno-connect-string> <connect-timeout-seconds>
stdin : JSON lines {"id", "input", "output"}   (absolute file paths)
stdout: JSON lines {"event": "ready"} once, then {"id", "ok", "code"?, "error"?} per job
codes : LOAD_FAILED (input unreadable -> 422), EXPORT_FAILED, OFFICE_DIED (helper exits)
"""
import json
import sys
import time

import uno
from com.sun.star.beans import PropertyValue


def props(**kw):
    out = []
    for k, v in kw.items():
        p = PropertyValue()
        p.Name, p.Value = k, v
        out.append(p)
    return tuple(out)


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def connect(url, timeout):
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    deadline = time.monotonic() + timeout
    while True:
        try:
            ctx = resolver.resolve("uno:" + url)
            return ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
        except Exception as e:  # NoConnectException while the office is starting
            if time.monotonic() > deadline:
                send({"event": "fatal", "error": "could not connect to office: %s" % e})
                sys.exit(2)
            time.sleep(0.1)


def alive(desktop):
    try:
        desktop.getFrames()
        return True
    except Exception:
        return False


def main():
    desktop = connect(sys.argv[1], float(sys.argv[2]))
    send({"event": "ready"})
    load_props = props(Hidden=True, ReadOnly=True, MacroExecutionMode=0, UpdateDocMode=0,
                       FilterName="MS Word 2007 XML")
    store_props = props(FilterName="writer_pdf_Export")
    for line in sys.stdin:
        if not line.strip():
            continue
        job = json.loads(line)
        jid, doc = job["id"], None
        try:
            try:
                doc = desktop.loadComponentFromURL(uno.systemPathToFileUrl(job["input"]), "_blank", 0, load_props)
            except Exception as e:
                raise LoadError(str(e) or type(e).__name__)
            if doc is None or not hasattr(doc, "getText"):
                raise LoadError("not a Word document")
            doc.storeToURL(uno.systemPathToFileUrl(job["output"]), store_props)
            send({"id": jid, "ok": True})
        except Exception as e:
            if not alive(desktop):  # the office is gone: report it and exit, the server restarts us
                send({"id": jid, "ok": False, "code": "OFFICE_DIED", "error": "office process died"})
                sys.exit(3)
            code = "LOAD_FAILED" if isinstance(e, LoadError) else "EXPORT_FAILED"
            send({"id": jid, "ok": False, "code": code, "error": str(e) or type(e).__name__})
        finally:
            if doc is not None:
                try:
                    doc.close(True)
                except Exception:
                    pass
    try:  # stdin closed: the server is gone, take the office down with us
        desktop.terminate()
    except Exception:
        pass


class LoadError(Exception):
    pass


if __name__ == "__main__":
    main()
