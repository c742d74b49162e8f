"""docs/tutorial.ipynb runs from top to bottom (nbclient, a fresh kernel, a scratch working directory)."""

from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parents[1] / "docs" / "tutorial.ipynb"


def test_the_tutorial_notebook_runs(tmp_path):
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(notebook, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "KTH@0-1 100 processors" in text and "front points" in text and "jobs on processors" in text
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 3  # the decision surface, the front, the Gantt chart
    assert (tmp_path / "runs" / "tutorial-train" / "summary.json").exists()
