"""The user's own files: attachments to a message and the document library, and their tools.

``extract`` reads a file (PDF, DOCX, text and code, CSV, XLSX, HTML, pictures); ``attachments``
puts attached files into a message within the model's window; ``library`` indexes the user's
folders for search; ``tools`` gives the agent ``read_attachment`` and ``search_documents``.
"""
