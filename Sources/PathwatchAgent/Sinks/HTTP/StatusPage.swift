/// The status page (SPEC §8): one self-contained document, its style and script inline and
/// allowed by hash in the Content-Security-Policy.
enum StatusPage {
    static let style = "body { font-family: sans-serif; }"
    static let script = """
        const source = new EventSource("events");
        source.addEventListener("status", (e) => {
          const d = JSON.parse(e.data);
          const banner = document.getElementById("banner");
          banner.textContent = d.path.description;
          banner.dataset.status = d.path.status;
        });
        """
    static let html = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>Pathwatch</title>
        <style>\(style)</style></head>
        <body><div id="banner"></div><script>\(script)</script></body></html>
        """
}
