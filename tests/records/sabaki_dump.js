// Read SGF files with Sabaki's own parser (@sabaki/sgf) and print each as JSON:
// {file: [[parentIndex, data], ...] per game tree}, nodes in document order.
// Usage: node sabaki_dump.js < list   (one path a line; driven by test_sgf_sabaki.py)
const path = require('path')
const sgf = require(path.join(__dirname, '..', 'js', 'node_modules', '@sabaki', 'sgf'))

const fs = require('fs')
const files = fs.readFileSync(0, 'utf8').split('\n').filter(line => line.length > 0)
const out = {}
for (const file of files) {
  const trees = sgf.parseFile(file)
  out[file] = trees.map(root => {
    const nodes = []
    const stack = [[root, -1]]
    while (stack.length > 0) {
      const [node, parent] = stack.pop()
      const index = nodes.length
      nodes.push([parent, node.data])
      for (let i = node.children.length - 1; i >= 0; i--) {
        stack.push([node.children[i], index])
      }
    }
    return nodes
  })
}
process.stdout.write(JSON.stringify(out))
