// Writes a coal BVHModel of every bounding-volume type, in the three boost archives coal
// saves (saveToText, saveToXML, saveToBinary), over a mesh read from an OBJ file (lines
// "v x y z" and "f i j k", 1-based). The Python bindings of coal 3.0.3 offer only the OBB and
// OBBRSS models; this program makes the AABB, RSS and kIOS ones with the same library.
// Build and run: see README.md in this folder.
#include <coal/BVH/BVH_model.h>
#include <coal/serialization/BVH_model.h>
#include <coal/serialization/archive.h>

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

template <typename BV>
void write_all(const std::vector<coal::Vec3s>& vertices,
               const std::vector<coal::Triangle>& triangles, const std::string& stem) {
  coal::BVHModel<BV> model;
  model.beginModel();
  model.addSubModel(vertices, triangles);
  model.endModel();
  coal::serialization::saveToText(model, stem + ".txt");
  coal::serialization::saveToXML(model, stem + ".xml", "model");
  coal::serialization::saveToBinary(model, stem + ".bin");
  std::cout << stem << ": " << model.getNumBVs() << " nodes" << std::endl;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: write_coal_models MESH.obj OUT_PREFIX" << std::endl;
    return 2;
  }
  std::ifstream in(argv[1]);
  std::vector<coal::Vec3s> vertices;
  std::vector<coal::Triangle> triangles;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string tag;
    words >> tag;
    if (tag == "v") {
      double x, y, z;
      words >> x >> y >> z;
      vertices.emplace_back(x, y, z);
    } else if (tag == "f") {
      std::size_t a, b, c;
      words >> a >> b >> c;
      triangles.emplace_back(a - 1, b - 1, c - 1);
    }
  }
  const std::string prefix = argv[2];
  write_all<coal::AABB>(vertices, triangles, prefix + "-aabb");
  write_all<coal::OBB>(vertices, triangles, prefix + "-obb");
  write_all<coal::RSS>(vertices, triangles, prefix + "-rss");
  write_all<coal::OBBRSS>(vertices, triangles, prefix + "-obbrss");
  write_all<coal::kIOS>(vertices, triangles, prefix + "-kios");
  return 0;
}
