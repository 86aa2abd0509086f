"""Pictures and pages for people: heatmaps and plots, board pictures (SVG/PNG), ASCII setup
boards, the HTML document builder and the self-contained game viewer (with its assets).
"""
